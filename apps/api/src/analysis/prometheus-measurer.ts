import type { NginxAnalysisMeasurement, NginxAnalysisTemplate } from '@ngx/nginx-api';
import type { AnalysisMeasurer, AnalysisTarget } from './analysis-run.js';
import { judgeValue } from './measurement-verdict.js';
import {
  classifyPrometheusAnswer,
  classifyRequestFailure,
  type PrometheusReading,
} from './prometheus-answer.js';
import { renderQuery } from './query-template.js';

/** How long one query may take before its measurement is Inconclusive. */
export const DEFAULT_QUERY_TIMEOUT_MS = 10_000;
/** Largest answer read: a query for one number never needs more; a larger one is an Error. */
export const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

export interface PrometheusMeasurerOptions {
  timeoutMs?: number;
  /** The measurement's `at`. */
  now?: () => Date;
}

/** The query URL under `address`, which may carry a path prefix (http://host/prometheus). */
export function queryUrl(address: string, query: string): URL {
  const url = new URL(`${address.replace(/\/+$/, '')}/api/v1/query`);
  url.searchParams.set('query', query);
  return url;
}

/** The body's text, or undefined when it is longer than `limit` bytes (reading stops there). */
async function boundedText(response: Response, limit: number): Promise<string | undefined> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    if (bytes > limit) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Measures an analysis template with one Prometheus instant query (GET <address>/api/v1/query), judged by its
 * conditions. Never throws: every failure is a measurement whose phase and message say which (see
 * classifyPrometheusAnswer and classifyRequestFailure); the measurement's `query` is the one sent.
 */
export class PrometheusMeasurer implements AnalysisMeasurer {
  private readonly timeoutMs: number;
  private readonly now: () => Date;

  constructor(options: PrometheusMeasurerOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS;
    this.now = options.now ?? (() => new Date());
  }

  async measure(
    template: NginxAnalysisTemplate,
    target: AnalysisTarget,
    signal?: AbortSignal,
  ): Promise<NginxAnalysisMeasurement> {
    const at = this.now().toISOString();
    try {
      const rendered = renderQuery(template.prometheus.query, target);
      if (rendered.error !== undefined)
        return { at, query: template.prometheus.query, phase: 'Error', message: rendered.error };
      const reading = await this.read(template.prometheus.address, rendered.query, signal);
      if (reading.phase !== undefined)
        return { at, query: rendered.query, phase: reading.phase, message: reading.message };
      return { at, query: rendered.query, ...withoutUndefined(judgeValue(template, reading.value)) };
    } catch (unexpected) {
      return {
        at,
        query: template.prometheus.query,
        phase: 'Error',
        message: `measurement failed: ${(unexpected as Error)?.message ?? String(unexpected)}`,
      };
    }
  }

  private async read(address: string, query: string, signal?: AbortSignal): Promise<PrometheusReading> {
    let url: URL;
    try {
      url = queryUrl(address, query);
    } catch {
      return { phase: 'Error', message: `the address ${JSON.stringify(address)} is not a URL` };
    }
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    try {
      const response = await fetch(url, { signal: combined, headers: { accept: 'application/json' } });
      const body = await boundedText(response, MAX_ANSWER_BYTES);
      if (body === undefined)
        return {
          phase: 'Error',
          message: `the answer is larger than ${MAX_ANSWER_BYTES} bytes: a query for one number never needs that much`,
        };
      return classifyPrometheusAnswer(response.status, body);
    } catch (failure) {
      return classifyRequestFailure(failure, {
        timeoutMs: this.timeoutMs,
        canceled: signal?.aborted === true,
      });
    }
  }
}

function withoutUndefined<T extends object>(object: T): T {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as T;
}
