import { rolloutVerdict } from '@ngx/nginx-api';
import { CliError } from '../cli-error.js';
import type { Connection } from '../connection.js';
import { parseGoDuration } from '../go-duration.js';
import { followNginxes, readNginx } from '../nginx-client.js';
import type { Output } from '../output.js';

/** `status NAME --timeout D`'s exit codes: a CI gate reads them. */
export const STATUS_EXIT = { rolledOut: 0, failed: 1, timedOut: 2 } as const;

/**
 * `status NAME [--timeout D]`: follows the Nginx until its rollout is done (0), failed, aborted or rolled back (1),
 * or D passed (2; 0 or none: no limit), printing each new state as kubectl rollout status does.
 */
export async function status(
  connection: Connection,
  [name]: string[],
  flags: { timeout?: string },
  output: Output,
  signal: AbortSignal,
): Promise<number> {
  const timeoutMs = flags.timeout === undefined ? 0 : parseGoDuration(flags.timeout);
  if (timeoutMs === undefined)
    throw new CliError(
      `invalid argument "${flags.timeout}" for "--timeout" flag: time: invalid duration "${flags.timeout}"`,
      "See 'kubectl ngx status --help' for usage.",
    );
  await readNginx(connection.client, connection.namespace, name!); // NotFound at once, as kubectl
  const stop = new AbortController();
  const abort = () => stop.abort();
  signal.addEventListener('abort', abort, { once: true });
  const timer = timeoutMs > 0 ? setTimeout(abort, timeoutMs) : undefined;
  let verdict: 'done' | 'failed' | 'gone' | undefined;
  let last = '';
  try {
    await followNginxes(
      connection.client,
      { namespace: connection.namespace, name },
      (nginx, deleted) => {
        if (deleted) {
          verdict = 'gone';
          stop.abort();
          return;
        }
        const { state, message } = rolloutVerdict(nginx);
        if (state === 'waiting') {
          if (message !== last) output.out(message);
          last = message;
          return;
        }
        verdict = state;
        if (state === 'done') output.out(`nginx "${name}" successfully rolled out`);
        else output.err(`error: nginx "${name}" rollout failed: ${message}`);
        stop.abort();
      },
      stop.signal,
    );
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', abort);
  }
  if (verdict === 'done') return STATUS_EXIT.rolledOut;
  if (verdict === 'failed') return STATUS_EXIT.failed;
  if (verdict === 'gone') throw new CliError(`nginx "${name}" was deleted`);
  if (signal.aborted) return STATUS_EXIT.failed;
  output.err('error: timed out waiting for the condition');
  return STATUS_EXIT.timedOut;
}
