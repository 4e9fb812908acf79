import { rolloutSummary, type Nginx } from '@ngx/nginx-api';
import { stringify } from 'yaml';
import { CliError } from '../cli-error.js';
import type { Connection } from '../connection.js';
import { humanAge } from '../go-duration.js';
import { followNginxes, listNginxes, readNginx } from '../nginx-client.js';
import type { Output } from '../output.js';
import { formatTable } from '../table.js';

export const GET_COLUMNS = ['NAME', 'READY', 'REVISION', 'PHASE', 'STEP', 'WEIGHT', 'ANALYSIS', 'AGE'];

/** One Nginx as a line of `get`: ready/desired, revision, rollout phase, canary step and weight, analysis. Pure. */
export function nginxRow(nginx: Nginx, now: number, withNamespace: boolean): string[] {
  const summary = rolloutSummary(nginx);
  const canary = summary.canary;
  const created = Date.parse(String(nginx.metadata.creationTimestamp ?? ''));
  return [
    ...(withNamespace ? [summary.namespace] : []),
    summary.name,
    `${summary.ready}/${summary.desired}`,
    summary.revision ?? '<none>',
    summary.phase,
    canary ? `${Math.min(canary.step + 1, canary.steps)}/${canary.steps}` : '-',
    canary ? `${canary.weight}%` : '-',
    summary.analysis ?? '-',
    Number.isNaN(created) ? '<unknown>' : humanAge(created, now),
  ];
}

const headers = (withNamespace: boolean) => (withNamespace ? ['NAMESPACE', ...GET_COLUMNS] : GET_COLUMNS);

function printObjects(nginxes: Nginx[], format: string, single: boolean, output: Output): void {
  const items = nginxes;
  const value = single
    ? items[0]
    : { apiVersion: 'v1', kind: 'List', items, metadata: { resourceVersion: '' } };
  output.out(format === 'json' ? JSON.stringify(value, null, 4) : stringify(value).trimEnd());
}

/** `get [NAME] [--watch] [-A] [-o json|yaml]`. */
export async function get(
  connection: Connection,
  args: string[],
  flags: { watch?: boolean; 'all-namespaces'?: boolean; output?: string },
  output: Output,
  signal: AbortSignal,
): Promise<number> {
  const [name] = args;
  const all = flags['all-namespaces'] === true;
  if (all && name !== undefined)
    throw new CliError('a resource cannot be retrieved by name across all namespaces');
  const format = flags.output;
  if (format !== undefined && format !== 'json' && format !== 'yaml')
    throw new CliError(
      `unable to match a printer suitable for the output format "${format}", allowed formats are: json,yaml`,
    );
  const { client, namespace: contextNamespace } = connection;
  const namespace = all ? undefined : contextNamespace;
  if (flags.watch) {
    if (format) throw new CliError('--watch prints a table: it takes no -o');
    if (name !== undefined) await readNginx(client, contextNamespace, name); // NotFound at once, as kubectl
    let printedHeader = false;
    await followNginxes(
      client,
      { namespace, ...(name !== undefined ? { name } : {}) },
      (nginx) => {
        const table = formatTable(headers(all), [nginxRow(nginx, Date.now(), all)]).split('\n');
        if (!printedHeader) output.out(table[0]!);
        printedHeader = true;
        output.out(table[1]!);
      },
      signal,
    );
    return 0;
  }
  const nginxes =
    name !== undefined
      ? [await readNginx(client, contextNamespace, name)]
      : (await listNginxes(client, namespace)).items;
  if (format) {
    printObjects(nginxes, format, name !== undefined, output);
    return 0;
  }
  if (nginxes.length === 0) {
    output.err(all ? 'No resources found' : `No resources found in ${contextNamespace} namespace.`);
    return 0;
  }
  const now = Date.now();
  output.out(
    formatTable(
      headers(all),
      nginxes.map((nginx) => nginxRow(nginx, now, all)),
    ),
  );
  return 0;
}
