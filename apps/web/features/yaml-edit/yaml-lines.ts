import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node } from 'yaml';

/** A problem at a 1-based line of a YAML text; `field` is the path a server's cause named, when it named one. */
export interface YamlProblem {
  line: number;
  message: string;
  field?: string;
}

/** One cause of a server's refusal, as a Kubernetes `Status` lists it. */
export interface FieldCause {
  field?: string;
  message?: string;
  reason?: string;
}

/**
 * The steps of a Kubernetes field path: `spec.strategy.rollingUpdate.maxSurge` → keys, `spec.ports[0].port` →
 * an index, `metadata.labels[app.kubernetes.io/name]` or `metadata.labels["a.b"]` → one key holding dots.
 * Empty segments are dropped, so `''` is `[]` (the whole object).
 */
export function fieldPathSteps(path: string): (string | number)[] {
  const steps: (string | number)[] = [];
  const pattern = /\[(?:"([^"]*)"|'([^']*)'|([^\]]*))\]|([^.[\]]+)/g;
  for (const match of path.matchAll(pattern)) {
    const [, doubleQuoted, singleQuoted, bracketed, plain] = match;
    if (plain !== undefined) steps.push(plain);
    else if (doubleQuoted !== undefined || singleQuoted !== undefined)
      steps.push((doubleQuoted ?? singleQuoted)!);
    else if (/^\d+$/.test(bracketed!)) steps.push(Number(bracketed));
    else if (bracketed) steps.push(bracketed);
  }
  return steps;
}

const startOf = (node: unknown): number | undefined =>
  (node as Node | null | undefined)?.range?.[0] ?? undefined;

/**
 * The 1-based line of `path`'s key in a YAML text (of its item, for an index), for placing a server's cause
 * next to what it names. A path that goes further than the text (a key the text does not have, a missing
 * index) gives the line of the deepest step the text has; a path with no step in the text, an empty path or a
 * text that is not a mapping gives line 1. Never throws, whatever the text.
 */
export function lineOfField(text: string, path: string): number {
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter, keepSourceTokens: false });
  let node: unknown = doc.contents;
  let offset: number | undefined;
  for (const step of fieldPathSteps(path)) {
    if (isMap(node)) {
      const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === String(step));
      if (!pair) break;
      offset = startOf(pair.key) ?? offset;
      node = pair.value;
    } else if (isSeq(node) && typeof step === 'number') {
      const item = node.items[step];
      if (item === undefined) break;
      offset = startOf(item) ?? offset;
      node = item;
    } else break;
  }
  return offset === undefined ? 1 : counter.linePos(offset).line;
}

/**
 * What keeps a YAML text from being one manifest, without asking a server: its syntax errors (at their line,
 * nginx-style one-line messages), or, when it parses, a top level that is not a mapping (line 1). [] when it is
 * one YAML mapping.
 */
export function yamlProblems(text: string): YamlProblem[] {
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter, prettyErrors: false });
  if (doc.errors.length > 0)
    return doc.errors.map((error) => ({
      line: counter.linePos(error.pos[0]).line,
      message: error.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, ''),
    }));
  if (!isMap(doc.contents))
    return [{ line: 1, message: 'A manifest is a YAML mapping (apiVersion, kind, metadata, spec).' }];
  return [];
}

/**
 * A server's causes placed at the lines of the text they were answered for (see `lineOfField`), in the
 * server's order. A cause without a field stands at line 1; one without a message says
 * its reason.
 */
export function causesAtLines(text: string, causes: readonly FieldCause[]): YamlProblem[] {
  return causes.map((cause) => ({
    line: cause.field ? lineOfField(text, cause.field) : 1,
    message: cause.message ?? cause.reason ?? 'invalid',
    ...(cause.field ? { field: cause.field } : {}),
  }));
}

/** The offset in `text` where 1-based `line` starts (the end of the text for a line past it, 0 below 1). */
export function lineStartOffset(text: string, line: number): number {
  let offset = 0;
  for (let current = 1; current < line; current++) {
    const next = text.indexOf('\n', offset);
    if (next === -1) return text.length;
    offset = next + 1;
  }
  return offset;
}
