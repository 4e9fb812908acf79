import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NginxAnalysisTemplate } from '@ngx/nginx-api';
import { PrometheusMeasurer } from '../apps/api/src/analysis/prometheus-measurer.js';
import { CounterExporter, freePort, TestPrometheus } from './support/prometheus.js';
import { waitFor } from './support/wait.js';

// The query shape, over a window this test fills in seconds.
const ERROR_RATE =
  'sum(rate(nginx_http_requests_total{status=~"5..",nginx="{{name}}",namespace="{{namespace}}",revision="{{revision}}"}[15s])) / sum(rate(nginx_http_requests_total{nginx="{{name}}",namespace="{{namespace}}",revision="{{revision}}"}[15s]))';
const series = (revision: string, status: string, perSecond: number) => ({
  labels: { nginx: 'web', namespace: 'ns', revision, status },
  perSecond,
});

describe('canary analysis against a real Prometheus', () => {
  const exporter = new CounterExporter();
  let prometheus: TestPrometheus;
  const measurer = new PrometheusMeasurer();
  const template = (query: string, extra: Partial<NginxAnalysisTemplate> = {}): NginxAnalysisTemplate => ({
    name: 'error-rate',
    prometheus: { address: prometheus.address, query },
    successCondition: 'result < 0.01',
    ...extra,
  });
  const target = (revision: string) => ({ namespace: 'ns', name: 'web', revision });

  beforeAll(async () => {
    // Revision "good" fails 0.1% of its requests, "bad" 5%.
    exporter.set([
      series('good', '200', 999),
      series('good', '500', 1),
      series('bad', '200', 95),
      series('bad', '503', 5),
    ]);
    await exporter.start();
    prometheus = new TestPrometheus(exporter.port);
    await prometheus.start();
    // rate() needs two scrapes inside its window.
    for (const revision of ['good', 'bad'])
      await waitFor(
        `an error rate for revision ${revision}`,
        async () => {
          const query = ERROR_RATE.replaceAll('{{name}}', 'web')
            .replaceAll('{{namespace}}', 'ns')
            .replaceAll('{{revision}}', revision);
          return (await prometheus.query(query)).length === 1;
        },
        { timeoutMs: 60_000, intervalMs: 500 },
      );
  });

  afterAll(async () => {
    await prometheus?.stop();
    await exporter.stop();
  });

  it('passes a good error rate, with its value and the query as sent', async () => {
    const measurement = await measurer.measure(template(ERROR_RATE), target('good'));
    expect(measurement).toMatchObject({
      phase: 'Successful',
      query: expect.stringContaining('revision="good"'),
    });
    expect(measurement.query).not.toContain('{{');
    expect(measurement.value).toBeCloseTo(0.001, 4);
  });

  it('fails a bad error rate, naming the condition', async () => {
    const measurement = await measurer.measure(template(ERROR_RATE), target('bad'));
    expect(measurement).toMatchObject({
      phase: 'Failed',
      message: expect.stringMatching(/does not meet successCondition result < 0.01/),
    });
    expect(measurement.value).toBeCloseTo(0.05, 3);
    expect(
      await measurer.measure(template(ERROR_RATE, { failureCondition: 'result > 0.02' }), target('bad')),
    ).toMatchObject({
      phase: 'Failed',
      message: expect.stringMatching(/meets failureCondition result > 0.02/),
    });
  });

  it('is an Error naming Prometheus’ parse error for a malformed query', async () => {
    const measurement = await measurer.measure(
      template('sum(rate(nginx_http_requests_total[15s]'),
      target('good'),
    );
    expect(measurement).toMatchObject({
      phase: 'Error',
      message: expect.stringMatching(/^Prometheus refused the query \(bad_data\): .*parse error/),
    });
  });

  it('is an Error "no data" when no series match', async () => {
    expect(await measurer.measure(template(ERROR_RATE), target('unknown'))).toMatchObject({
      phase: 'Error',
      message: 'no data: the query matched no series',
    });
  });

  it('is an Error for a vector of several series where one number was expected', async () => {
    const measurement = await measurer.measure(
      template('rate(nginx_http_requests_total{nginx="{{name}}",revision="{{revision}}"}[15s])'),
      target('good'),
    );
    expect(measurement).toMatchObject({
      phase: 'Error',
      message: expect.stringMatching(/^a vector of 2 series where one number was expected/),
    });
  });

  it('is Inconclusive when nothing listens at the address', async () => {
    const port = await freePort();
    const measurement = await measurer.measure(
      { ...template(ERROR_RATE), prometheus: { address: `http://127.0.0.1:${port}`, query: ERROR_RATE } },
      target('good'),
    );
    expect(measurement).toMatchObject({
      phase: 'Inconclusive',
      message: expect.stringMatching(/^Prometheus unreachable: .*ECONNREFUSED/),
    });
  });

  it('is Inconclusive once Prometheus has stopped', async () => {
    const running = template(ERROR_RATE);
    await prometheus.stop();
    expect(await measurer.measure(running, target('good'))).toMatchObject({
      phase: 'Inconclusive',
      message: expect.stringMatching(/^Prometheus unreachable: /),
    });
  });
});
