import { BinaryReader, WireType } from '@bufbuild/protobuf/wire';
import type { ResourceAttributes } from './self-review.js';

/** The media type kubectl sends built-in kinds in, and the prefix every such body starts with. */
export const PROTOBUF = 'application/vnd.kubernetes.protobuf';
const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]); // "k8s\0"

/** Reads each field of one message: `onField(number, reader)` consumes the value or returns false to skip it. */
function fields(bytes: Uint8Array, onField: (field: number, reader: BinaryReader) => boolean): void {
  const reader = new BinaryReader(bytes);
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag();
    if (wireType !== WireType.LengthDelimited || !onField(field, reader)) reader.skip(wireType, field);
  }
}

/** The `raw` object of a Kubernetes protobuf envelope (`k8s\0` + runtime.Unknown), with its apiVersion and kind. */
function unwrap(body: Buffer): { apiVersion: string; kind: string; raw: Uint8Array } {
  if (!body.subarray(0, 4).equals(MAGIC)) throw new Error('not a Kubernetes protobuf envelope');
  let apiVersion = '';
  let kind = '';
  let raw: Uint8Array = new Uint8Array();
  fields(body.subarray(4), (field, reader) => {
    if (field === 1)
      fields(reader.bytes(), (typeField, typeReader) => {
        if (typeField === 1) apiVersion = typeReader.string();
        else if (typeField === 2) kind = typeReader.string();
        else return false;
        return true;
      });
    else if (field === 2) raw = reader.bytes();
    else return false;
    return true;
  });
  return { apiVersion, kind, raw };
}

const RESOURCE_FIELDS = new Map<number, keyof ResourceAttributes>([
  [1, 'namespace'],
  [2, 'verb'],
  [3, 'group'],
  [5, 'resource'],
  [6, 'subresource'],
  [7, 'name'],
]);

/**
 * A SelfSubjectAccessReview or SelfSubjectReview sent as Kubernetes protobuf (kubectl does for built-in kinds),
 * as the JSON-shaped object the review endpoints read: apiVersion, kind and, for an access review,
 * spec.resourceAttributes (or an empty nonResourceAttributes). Only the fields the reviews use are read; the
 * wire format is protobuf's (read by @bufbuild/protobuf), the field numbers those of k8s.io/api.
 */
export function decodeReview(body: Buffer): Record<string, unknown> {
  const { apiVersion, kind, raw } = unwrap(body);
  let resourceAttributes: ResourceAttributes | undefined;
  let nonResource = false;
  fields(raw, (field, reader) => {
    if (field !== 2) return false; // spec
    fields(reader.bytes(), (specField, specReader) => {
      if (specField === 2) {
        nonResource = true;
        return false;
      }
      if (specField !== 1) return false;
      const attributes: ResourceAttributes = {};
      fields(specReader.bytes(), (attributeField, attributeReader) => {
        const name = RESOURCE_FIELDS.get(attributeField);
        if (!name) return false;
        attributes[name] = attributeReader.string();
        return true;
      });
      resourceAttributes = attributes;
      return true;
    });
    return true;
  });
  const spec = resourceAttributes ? { resourceAttributes } : nonResource ? { nonResourceAttributes: {} } : {};
  return { apiVersion, kind, spec };
}
