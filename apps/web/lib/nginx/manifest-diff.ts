import type { Nginx } from '@ngx/nginx-api';
import { diffLines } from 'diff';
import { isMap, parseDocument, stringify } from 'yaml';

/** One line of a line diff: in both texts, only in the second (added) or only in the first (removed). */
export interface DiffLine {
  kind: 'same' | 'added' | 'removed';
  text: string;
}

type Metadata = Nginx['metadata'];

/**
 * The part of an Nginx a person edits as a manifest: apiVersion, kind, metadata without managedFields, and
 * spec; never status. metadata.resourceVersion stays, so a replace sent from it is conditional.
 */
export function editableManifest(nginx: Nginx): Pick<Nginx, 'apiVersion' | 'kind' | 'metadata' | 'spec'> {
  const metadata: Metadata = { ...nginx.metadata };
  delete metadata.managedFields;
  return { apiVersion: nginx.apiVersion, kind: nginx.kind, metadata, spec: nginx.spec };
}

/** `editableManifest` as YAML text: what the Edit YAML editor starts from. */
export const manifestText = (nginx: Nginx): string => stringify(editableManifest(nginx));

/**
 * The manifest as YAML without what changes on every write and says nothing about what was asked for
 * (status, managedFields, resourceVersion, generation): two of these differ only where the object did.
 */
export function comparableText(nginx: Nginx): string {
  const manifest = editableManifest(nginx);
  const metadata: Metadata = { ...manifest.metadata };
  delete metadata.resourceVersion;
  delete metadata.generation;
  return stringify({ ...manifest, metadata });
}

/** before → after, line by line; the texts' final line feeds are not lines of their own. */
export function lineDiff(before: string, after: string): DiffLine[] {
  return diffLines(before, after).flatMap((part) =>
    part.value
      .replace(/\n$/, '')
      .split('\n')
      .map((text): DiffLine => ({ text, kind: part.added ? 'added' : part.removed ? 'removed' : 'same' })),
  );
}

/** Does the diff change anything? */
export const hasChanges = (lines: readonly DiffLine[]): boolean => lines.some((line) => line.kind !== 'same');

/**
 * The YAML text with metadata.resourceVersion set to `resourceVersion` (added when missing), comments and
 * layout kept, so a replace sent from it is conditioned on the object as it was read whatever the person did to
 * that line. A text that does not parse as a mapping is returned as it is (the server refuses it anyway).
 */
export function withResourceVersion(text: string, resourceVersion: string): string {
  const doc = parseDocument(text);
  if (doc.errors.length > 0 || !isMap(doc.contents)) return text;
  if (doc.getIn(['metadata', 'resourceVersion']) === resourceVersion) return text;
  if (doc.has('metadata') && !isMap(doc.get('metadata', true))) return text;
  doc.setIn(['metadata', 'resourceVersion'], resourceVersion);
  return doc.toString();
}
