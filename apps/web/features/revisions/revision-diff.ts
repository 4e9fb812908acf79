import {
  TEMPLATE_FIELDS,
  type NginxPodTemplate,
  type NginxResourceList,
  type RevisionItem,
  type TemplateFieldName,
} from '@ngx/nginx-api';
import { diffLines } from 'diff';

/** One field of a side-by-side comparison of two pod templates, each side as display text. */
export interface FieldRow {
  field: string;
  before: string;
  after: string;
  /** Whether the two sides' values differ (a config can change and keep its line count, so its text). */
  changed: boolean;
}

/** One line of one side of a config diff, numbered from 1 in that side's text. */
export interface NumberedLine {
  n: number;
  text: string;
}

/**
 * One row of a side-by-side line diff: `same` and `changed` have both sides, `removed` only the left (before),
 * `added` only the right (after).
 */
export interface LinePair {
  left?: NumberedLine;
  right?: NumberedLine;
  kind: 'same' | 'added' | 'removed' | 'changed';
}

/**
 * The side-by-side diff of two templates' config texts. A side without `spec.config` runs the default server:
 * its `…Default` flag is set and it has no lines (so its whole text shows as added or removed).
 */
export interface ConfigDiff {
  beforeDefault: boolean;
  afterDefault: boolean;
  lines: LinePair[];
}

/** What the UI says for a template without spec.config. */
export const DEFAULT_SERVER = 'default server';

const NOT_SET = 'not set';

const RESOURCE_NAMES = ['cpu', 'memory', 'ephemeral-storage'] as const;

function resource(list: NginxResourceList | undefined, key: (typeof RESOURCE_NAMES)[number]): string {
  const value = list?.[key];
  return value === undefined ? NOT_SET : String(value);
}

/** The readiness probe the controller gives pods of `template` (an HTTP GET of the health check path). */
export function probeText(template: NginxPodTemplate): string {
  if (template.healthCheckPath === undefined) return 'none';
  return `HTTP GET ${template.healthCheckPath} on port ${template.port}`;
}

const lineCount = (text: string): number => splitLines(text).length;

/** How the config field reads in the field rows: "default server", or "custom (12 lines)". */
export function configText(template: NginxPodTemplate): string {
  if (template.config === undefined) return DEFAULT_SERVER;
  const lines = lineCount(template.config);
  return `custom (${lines} line${lines === 1 ? '' : 's'})`;
}

const row = (field: string, before: string, after: string): FieldRow => ({
  field,
  before,
  after,
  changed: before !== after,
});

/** A template value as display text: "not set", the value, or JSON for a list or an object. */
const valueText = (value: unknown): string =>
  value === undefined ? NOT_SET : typeof value === 'object' ? JSON.stringify(value) : String(value);

/** A field's name in words (`healthCheckPath` → `health check path`). */
const inWords = (name: string) =>
  name.replace(/([a-z])([A-Z])/g, (_, a: string, b: string) => `${a} ${b.toLowerCase()}`);

type FieldRows = (before: NginxPodTemplate, after: NginxPodTemplate) => FieldRow[];

/**
 * The fields shown as more than their value's text. Every other template field is one row of it, shown when
 * either side sets the field.
 */
const FIELD_ROWS: { [K in TemplateFieldName]?: FieldRows } = {
  healthCheckPath: (before, after) => [
    row('health check path', valueText(before.healthCheckPath), valueText(after.healthCheckPath)),
    row('readiness probe', probeText(before), probeText(after)),
  ],
  resources: (before, after) =>
    (['requests', 'limits'] as const).flatMap((kind) =>
      RESOURCE_NAMES.map((name) =>
        row(
          `${kind} ${name}`,
          resource(before.resources?.[kind], name),
          resource(after.resources?.[kind], name),
        ),
      ).filter((r) => !r.field.endsWith('ephemeral-storage') || r.before !== NOT_SET || r.after !== NOT_SET),
    ),
  config: (before, after) => [
    { ...row('config', configText(before), configText(after)), changed: before.config !== after.config },
  ],
};

/** The template fields in the order their rows show: the table's, with the config (whose line diff follows) last. */
const ROW_ORDER = [...TEMPLATE_FIELDS.filter((name) => name !== 'config'), 'config' as const];

/**
 * The rows comparing `before` with `after`, always in the same order: a row for each pod template field (image,
 * port …), the health check path followed by the readiness probe, requests and limits of cpu and memory
 * (ephemeral storage only when either side sets it), and the config last.
 */
export function templateFieldRows(before: NginxPodTemplate, after: NginxPodTemplate): FieldRow[] {
  return ROW_ORDER.flatMap((name) => {
    const rows = FIELD_ROWS[name];
    if (rows) return rows(before, after);
    if (before[name] === undefined && after[name] === undefined) return [];
    return [row(inWords(name), valueText(before[name]), valueText(after[name]))];
  });
}

/** The lines of a text, without the empty one after a final newline. */
function splitLines(text: string): string[] {
  if (text === '') return [];
  return text.replace(/\r?\n$/, '').split(/\r?\n/);
}

/**
 * A side-by-side line diff of `before` and `after` (from `diffLines`): a run of removed lines followed by a run of
 * added ones is paired line by line as `changed`, the longer run's rest left `removed` or `added`. Every line of
 * each text appears exactly once, in order, numbered from 1.
 */
export function sideBySideLines(before: string, after: string): LinePair[] {
  const pairs: LinePair[] = [];
  let left = 0;
  let right = 0;
  const parts = diffLines(before, after);
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    const lines = splitLines(part.value);
    if (!part.added && !part.removed) {
      for (const text of lines)
        pairs.push({ left: { n: ++left, text }, right: { n: ++right, text }, kind: 'same' });
      continue;
    }
    if (part.added) {
      for (const text of lines) pairs.push({ right: { n: ++right, text }, kind: 'added' });
      continue;
    }
    const next = parts[i + 1];
    const added = next?.added ? splitLines(next.value) : [];
    if (next?.added) i++;
    const count = Math.max(lines.length, added.length);
    for (let k = 0; k < count; k++) {
      const removedText = lines[k];
      const addedText = added[k];
      if (removedText !== undefined && addedText !== undefined)
        pairs.push({
          left: { n: ++left, text: removedText },
          right: { n: ++right, text: addedText },
          kind: 'changed',
        });
      else if (removedText !== undefined)
        pairs.push({ left: { n: ++left, text: removedText }, kind: 'removed' });
      else pairs.push({ right: { n: ++right, text: addedText! }, kind: 'added' });
    }
  }
  return pairs;
}

/** The side-by-side diff of the config texts of `before` and `after` (see `ConfigDiff` for the default server). */
export function configDiff(before: NginxPodTemplate, after: NginxPodTemplate): ConfigDiff {
  return {
    beforeDefault: before.config === undefined,
    afterDefault: after.config === undefined,
    lines: sideBySideLines(before.config ?? '', after.config ?? ''),
  };
}

const count = (n: number, what: string) => `${n} line${n === 1 ? '' : 's'} ${what}`;

function configSentence(current: NginxPodTemplate, target: NginxPodTemplate): string | undefined {
  if (current.config === target.config) return undefined;
  if (target.config === undefined) return `config: ${configText(current)} → ${DEFAULT_SERVER}`;
  if (current.config === undefined) return `config: ${DEFAULT_SERVER} → ${configText(target)}`;
  const lines = sideBySideLines(current.config, target.config);
  const tally = (kind: LinePair['kind']) => lines.filter((line) => line.kind === kind).length;
  const parts = [
    [tally('changed'), 'changed'],
    [tally('added'), 'added'],
    [tally('removed'), 'removed'],
  ] as const;
  const said = parts.filter(([n]) => n > 0).map(([n, what]) => count(n, what));
  // Texts that differ only in a final newline diff as one changed line.
  return `config: ${said.length ? said.join(', ') : count(1, 'changed')}`;
}

/**
 * What rolling back from `current` (the Nginx's template now) to `target` changes, one sentence per changed field
 * ("image nginx:1.28 → nginx:1.27", "config: 3 lines changed, 1 line added"); empty when the templates are equal.
 * The readiness probe is not repeated: it follows from the port and health check path, which are named.
 */
export function rollbackSummary(current: NginxPodTemplate, target: NginxPodTemplate): string[] {
  const sentences = templateFieldRows(current, target)
    .filter((row) => row.changed && row.field !== 'readiness probe' && row.field !== 'config')
    .map((row) => `${row.field} ${row.before} → ${row.after}`);
  const config = configSentence(current, target);
  return config ? [...sentences, config] : sentences;
}

/**
 * The pair of revision numbers to compare before the user picks: the revision before the current one (the
 * highest-numbered lower one, else the next higher) against the current one; without a current item, the second
 * newest against the newest. Undefined when there are no items; with one item, it is compared with itself.
 */
export function defaultComparison(
  items: readonly Pick<RevisionItem, 'revision' | 'current'>[],
): { from: number; to: number } | undefined {
  if (items.length === 0) return undefined;
  const numbers = items.map((item) => item.revision).sort((a, b) => b - a);
  const to = items.find((item) => item.current)?.revision ?? numbers[0]!;
  const from = numbers.find((n) => n < to) ?? [...numbers].reverse().find((n) => n > to) ?? to;
  return { from, to };
}

/** The word for an audited change's verb, as it reads after the actor ("alice patched"). */
export function verbText(verb: string): string {
  const words: Record<string, string> = {
    create: 'created',
    update: 'replaced',
    patch: 'patched',
    apply: 'applied',
    rollback: 'rolled back to it',
    delete: 'deleted',
  };
  return words[verb] ?? verb;
}
