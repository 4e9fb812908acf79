import { CliError } from '../cli-error.js';
import type { Connection } from '../connection.js';
import type { HistoryItem, NginxDoor } from '../nginx-door.js';
import { nginxRef, type Output } from '../output.js';
import { formatTable } from '../table.js';

/**
 * The revision `undo` goes back to: `toRevision` when given (the door refuses one the Nginx has not), else the
 * newest revision other than the spec's (kubectl's "previous revision"). Pure.
 */
export function undoTarget(items: readonly HistoryItem[], name: string, toRevision?: number): number {
  if (toRevision !== undefined) return toRevision;
  const previous = items.filter((item) => !item.current).sort((a, b) => b.revision - a.revision)[0];
  if (!previous)
    throw new CliError(`no revision to roll back to: nginx "${name}" has no revision but its current one`);
  return previous.revision;
}

/** `undo NAME [--to-revision N]`. */
export async function undo(
  { namespace }: Connection,
  door: NginxDoor,
  [name]: string[],
  flags: { 'to-revision'?: string },
  output: Output,
): Promise<number> {
  const raw = flags['to-revision'];
  const toRevision = raw === undefined ? undefined : Number(raw);
  if (raw !== undefined && !(/^[0-9]{1,15}$/.test(raw) && toRevision! > 0))
    throw new CliError(
      `invalid argument "${raw}" for "--to-revision" flag: must be a revision number (1, 2, 3 …) as history lists it`,
      "See 'kubectl ngx undo --help' for usage.",
    );
  const { nginx, items } = await door.history(namespace, name!);
  const target = undoTarget(items, name!, toRevision);
  if (items.find((item) => item.revision === target)?.current) {
    output.out(`${nginxRef(name!)} skipped rollback (current template already matches revision ${target})`);
    return 0;
  }
  await door.rollback(namespace, name!, target, nginx);
  output.out(`${nginxRef(name!)} rolled back`);
  return 0;
}

/** Who introduced a revision, when the door knows (the control plane's audit); `<none>` otherwise. */
const changeCause = (item: HistoryItem) =>
  item.change ? `${item.change.actor} ${item.change.verb} via ${item.change.door}` : '<none>';

/** `history NAME`: the revisions oldest first, as kubectl rollout history lists them. */
export async function history(
  { namespace }: Connection,
  door: NginxDoor,
  [name]: string[],
  _flags: object,
  output: Output,
): Promise<number> {
  const { items } = await door.history(namespace, name!);
  const rows = [...items]
    .sort((a, b) => a.revision - b.revision)
    .map((item) => [
      String(item.revision),
      item.hash,
      item.template.image,
      item.current ? '*' : '',
      item.created,
      changeCause(item),
    ]);
  output.out(nginxRef(name!));
  output.out(formatTable(['REVISION', 'HASH', 'IMAGE', 'CURRENT', 'CREATED', 'CHANGE-CAUSE'], rows));
  return 0;
}
