import { KubeApiError, statusReason } from '@ngx/kube-runtime/status';
import { RequestRefused } from '@ngx/nginx-api';

/** A mistake kubectl itself would catch before calling a server: printed `error: <message>`, then `hint` if any. */
export class CliError extends Error {
  override name = 'CliError';

  constructor(
    message: string,
    readonly hint?: string,
    /** 1 as kubectl exits on every error; `status` uses 2 for a timeout. */
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/** Network failures kubectl words in its own way. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENOTFOUND', 'ETIMEDOUT']);

/**
 * What kubectl prints for `error`, and its exit code. A server's refusal reads `Error from server (<Reason>):
 * <message>` (kubectl's words, 401 aside); a refusal the plugin decided from the Nginx as read (talking to
 * kube-apiserver alone) reads the same, so both doors give the same lines. Pure.
 */
export function errorOutput(error: unknown, server: string): { text: string; exitCode: number } {
  if (error instanceof CliError)
    return {
      text: `error: ${error.message}${error.hint ? `\n${error.hint}` : ''}`,
      exitCode: error.exitCode,
    };
  if (error instanceof KubeApiError || error instanceof RequestRefused) {
    const code = error.code;
    const reason =
      (error instanceof KubeApiError ? error.reason : undefined) ?? statusReason(code) ?? 'Unknown';
    if (code === 401)
      return { text: 'error: You must be logged in to the server (Unauthorized)', exitCode: 1 };
    return { text: `Error from server (${reason}): ${error.message}`, exitCode: 1 };
  }
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string' && UNREACHABLE.has(code)) {
    const host = server.replace(/^[a-z]+:\/\//, '');
    return {
      text: `The connection to the server ${host} was refused - did you specify the right host or port?`,
      exitCode: 1,
    };
  }
  return { text: `error: ${error instanceof Error ? error.message : String(error)}`, exitCode: 1 };
}
