import type { NginxGateRun, NginxGateWebhook } from '@ngx/nginx-api';

/** How long a gate's webhook may take to answer when timeoutSeconds is not given. */
export const DEFAULT_GATE_TIMEOUT_SECONDS = 10;
/** The most of a failing answer's text kept in the gate's message. */
export const GATE_ANSWER_CHARS = 512;

/** What a gate's webhook is told: the rollout it gates, as JSON. */
export interface GateContext {
  /** The gate run's name (`<revision>-<step>-gate`, `<revision>-pre-gate`). */
  gate: string;
  nginx: { namespace: string; name: string; uid?: string };
  strategy: 'Canary' | 'BlueGreen';
  /** The revision being rolled out, and the one serving until it is promoted. */
  revision: string;
  stableRevision?: string;
  /** Strategy Canary: the step gated, and the canary's weight there. */
  step?: number;
  weight?: number;
}

/** A webhook's verdict, to be recorded as the gate's run (its name and step are the caller's). */
export type GateVerdict = Omit<NginxGateRun, 'name' | 'step'>;

/** The first `limit` characters of the body (reading stops there), with "…" when there was more. */
async function cappedText(response: Response, limit: number): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    text += decoder.decode(value, { stream: true });
    if (text.length > limit) {
      await reader.cancel().catch(() => undefined);
      return `${text.slice(0, limit)}…`;
    }
  }
}

/**
 * POSTs the rollout's context to a gate's webhook and judges the answer: 2xx passes; any other status fails with
 * the answer's text (capped at GATE_ANSWER_CHARS); no answer (body included) within timeoutSeconds, a refused
 * connection or a redirect (never followed) fail with why. Never throws, except when `signal` (the reconcile's)
 * aborts.
 */
export async function callGateWebhook(
  webhook: NginxGateWebhook,
  context: GateContext,
  options: { signal?: AbortSignal; now?: () => Date } = {},
): Promise<GateVerdict> {
  const now = options.now ?? (() => new Date());
  const seconds = webhook.timeoutSeconds ?? DEFAULT_GATE_TIMEOUT_SECONDS;
  const timeout = AbortSignal.timeout(seconds * 1000);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  try {
    const response = await fetch(webhook.url, {
      method: 'POST',
      headers: { ...webhook.headers, 'content-type': 'application/json' },
      body: JSON.stringify(context),
      redirect: 'manual',
      signal,
    });
    const text = (await cappedText(response, GATE_ANSWER_CHARS)).trim();
    const code = response.status;
    if (code >= 200 && code < 300) return { phase: 'Passed', at: now().toISOString(), code };
    return {
      phase: 'Failed',
      at: now().toISOString(),
      code,
      message: `HTTP ${code}${text ? `: ${text}` : ''}`,
    };
  } catch (error) {
    if (options.signal?.aborted) throw error;
    const message = timeout.aborted
      ? `no answer within ${seconds} s`
      : `could not call ${webhook.url}: ${causeOf(error)}`;
    return { phase: 'Failed', at: now().toISOString(), message };
  }
}

/** fetch's own message ("fetch failed") says little: its cause says what failed. */
function causeOf(error: unknown): string {
  const cause = (error as { cause?: unknown })?.cause;
  if (cause instanceof Error) return cause.message;
  return error instanceof Error ? error.message : String(error);
}
