import { causeText, entryText, timelineRows, type TimelineItem, type TimelineRow } from '@ngx/nginx-api';
import { CliError } from '../cli-error.js';
import type { Connection } from '../connection.js';
import { parseGoDuration } from '../go-duration.js';
import type { NginxDoor } from '../nginx-door.js';
import type { Output } from '../output.js';

/** One timeline row as a line: time, kind, what happened, and what caused it in words. Pure. */
export function timelineLine(row: Pick<TimelineRow, 'at' | 'kind' | 'text' | 'causeTexts'>): string {
  const cause = row.causeTexts.length > 0 ? `  ← ${row.causeTexts.join('; ')}` : '';
  return `${row.at}  ${row.kind.padEnd(9)}  ${row.text}${cause}`;
}

/** `timeline NAME [--follow] [--since 1h]`: the rows the UI's Timeline shows, oldest first, then new ones live. */
export async function timeline(
  { namespace }: Connection,
  door: NginxDoor,
  [name]: string[],
  flags: { follow?: boolean; since?: string },
  output: Output,
  signal: AbortSignal,
): Promise<number> {
  const sinceMs = flags.since === undefined ? undefined : parseGoDuration(flags.since);
  if (sinceMs === undefined && flags.since !== undefined)
    throw new CliError(
      `invalid argument "${flags.since}" for "--since" flag: time: invalid duration "${flags.since}"`,
      "See 'kubectl ngx timeline --help' for usage.",
    );
  const since = sinceMs === undefined ? undefined : new Date(Date.now() - sinceMs);
  const page = await door.timeline(namespace, name!, since);
  const rows = timelineRows(page.items, { kinds: [], actor: '' });
  for (const row of [...rows].reverse()) output.out(timelineLine(row));
  if (!flags.follow) return 0;
  const known = new Map(page.items.map((item) => [item.id, item]));
  await door.followTimeline(
    namespace,
    name!,
    page.resourceVersion,
    (item: TimelineItem) => {
      known.set(item.id, item);
      const causeTexts = item.causes.map((cause) => {
        const found = known.get(cause);
        return found ? causeText(found) : cause;
      });
      output.out(timelineLine({ at: item.at, kind: item.kind, text: entryText(item), causeTexts }));
    },
    signal,
  );
  return 0;
}

/** `why NAME POD`: from the pod's entry back to the change or person that caused it. */
export async function why(
  { namespace }: Connection,
  door: NginxDoor,
  [name, pod]: string[],
  _flags: object,
  output: Output,
): Promise<number> {
  const answer = await door.why(namespace, name!, pod!);
  output.out(
    `pod ${pod}: ${answer.actor ? `caused by ${answer.actor}${answer.door ? ` via ${answer.door}` : ''}` : 'the trail does not say who'}`,
  );
  answer.chain.forEach((item, depth) =>
    output.out(`${'  '.repeat(depth)}${depth === 0 ? '' : '← '}${item.at}  ${entryText(item)}`),
  );
  return 0;
}
