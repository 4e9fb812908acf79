/**
 * What one Prometheus instant-query answer means for a measurement, decided from the HTTP status and body alone
 * (no I/O here): one number to judge, or why there is none — Inconclusive when Prometheus could not answer (it
 * may next time), Error when the answer cannot be judged (asking again will not help).
 */
export type PrometheusReading =
  | { value: number; phase?: undefined; message?: undefined }
  | { phase: 'Inconclusive' | 'Error'; message: string; value?: undefined };

/** Longest piece of Prometheus' own text (an error, a body) a message quotes. */
export const QUOTED_TEXT_LIMIT = 300;

const quoted = (text: string) => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > QUOTED_TEXT_LIMIT ? `${flat.slice(0, QUOTED_TEXT_LIMIT)}…` : flat;
};
const inconclusive = (message: string): PrometheusReading => ({
  phase: 'Inconclusive',
  message: `Prometheus unreachable: ${message}`,
});
const error = (message: string): PrometheusReading => ({ phase: 'Error', message });

/** A status that says "not now" rather than "not this": the server or something before it is overloaded or down. */
const transient = (status: number) => status >= 500 || status === 429 || status === 408;

/** A sample's value as Prometheus writes it: a decimal string, or NaN, +Inf, -Inf. */
export function sampleValue(text: unknown): number | undefined {
  if (typeof text !== 'string') return undefined;
  if (text === 'NaN') return NaN;
  if (text === '+Inf' || text === 'Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) return undefined;
  return Number(text);
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const oneNumber = (what: string): PrometheusReading =>
  error(`${what} where one number was expected: the query must reduce to a single value (e.g. sum(…))`);

function fromSample(pair: unknown): PrometheusReading {
  const value = Array.isArray(pair) && pair.length === 2 ? sampleValue(pair[1]) : undefined;
  return value === undefined
    ? error(`not a Prometheus sample: ${quoted(JSON.stringify(pair) ?? '')}`)
    : { value };
}

function fromData(data: unknown): PrometheusReading {
  if (!isRecord(data) || typeof data.resultType !== 'string')
    return error('not a Prometheus query answer: it has no data.resultType');
  const result = data.result;
  switch (data.resultType) {
    case 'scalar':
      return fromSample(result);
    case 'vector': {
      if (!Array.isArray(result)) break;
      if (result.length === 0) return error('no data: the query matched no series');
      if (result.length > 1) return oneNumber(`a vector of ${result.length} series`);
      const [sample] = result as unknown[];
      if (isRecord(sample) && sample.value === undefined && sample.histogram !== undefined)
        return oneNumber('a histogram');
      return fromSample(isRecord(sample) ? sample.value : undefined);
    }
    case 'matrix':
      if (!Array.isArray(result)) break;
      return oneNumber(`a range vector (matrix) of ${result.length} series`);
    case 'string':
      return oneNumber('a string');
  }
  return error(`not a Prometheus query answer: result type ${quoted(JSON.stringify(data.resultType))}`);
}

/**
 * The reading of an answer to GET /api/v1/query with HTTP `status` and text `body`:
 *
 * | answer                                              | reading                                        |
 * | --------------------------------------------------- | ---------------------------------------------- |
 * | 5xx, 429, 408, or errorType timeout/canceled/unavailable | Inconclusive "Prometheus unreachable: …"  |
 * | 400 bad_data, 422 execution (the query is wrong)    | Error quoting Prometheus' error                |
 * | any other refusal (404, 401, …) or a non-Prometheus body | Error naming the status                   |
 * | scalar; vector of one sample                        | its value (NaN and ±Inf included)              |
 * | empty vector                                        | Error "no data: …"                             |
 * | vector of several series, matrix, string, histogram | Error "… where one number was expected"        |
 */
export function classifyPrometheusAnswer(status: number, body: string): PrometheusReading {
  let answer: unknown;
  try {
    answer = JSON.parse(body);
  } catch {
    answer = undefined;
  }
  const ok = status >= 200 && status < 300;
  if (!isRecord(answer)) {
    if (transient(status)) return inconclusive(`HTTP ${status}${body.trim() ? `: ${quoted(body)}` : ''}`);
    return error(
      `not a Prometheus API answer (HTTP ${status}${body.trim() ? `: ${quoted(body)}` : ''}): is the address the Prometheus server's base URL?`,
    );
  }
  if (ok && answer.status === 'success') return fromData(answer.data);

  const errorType = typeof answer.errorType === 'string' ? answer.errorType : 'error';
  const text = typeof answer.error === 'string' ? quoted(answer.error) : 'no error text';
  if (transient(status) || ['timeout', 'canceled', 'unavailable'].includes(errorType))
    return inconclusive(`HTTP ${status} (${errorType}): ${text}`);
  if (status === 400 || status === 422 || errorType === 'bad_data' || errorType === 'execution')
    return error(`Prometheus refused the query (${errorType}): ${text}`);
  if (ok) return error(`not a Prometheus API answer (status ${quoted(JSON.stringify(answer.status) ?? '')})`);
  return error(`Prometheus answered HTTP ${status} (${errorType}): ${text}`);
}

/**
 * The reading when no answer came: the request failed (refused, reset, DNS, TLS) or timed out — Inconclusive
 * either way, as Prometheus may answer next time. `canceled`: the caller gave up (shutting down, leadership lost).
 */
export function classifyRequestFailure(
  failure: unknown,
  { timeoutMs, canceled }: { timeoutMs: number; canceled: boolean },
): PrometheusReading {
  if (canceled) return inconclusive('the measurement was canceled before Prometheus answered');
  const name = (failure as { name?: unknown })?.name;
  if (name === 'TimeoutError') return inconclusive(`no answer within ${timeoutMs / 1000} s`);
  // undici's TypeError('fetch failed') carries the socket's error as its cause.
  const reasons: string[] = [];
  let current: unknown = failure;
  for (let i = 0; i < 4 && current instanceof Error; i++, current = current.cause)
    if (current.message && current.message !== 'fetch failed') reasons.push(current.message);
  return inconclusive(reasons.length > 0 ? quoted(reasons.join(': ')) : String(failure));
}
