import fc from 'fast-check';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NginxAnalysisTemplate } from '@ngx/nginx-api';
import { PrometheusMeasurer, queryUrl } from './prometheus-measurer.js';

const target = { namespace: 'shop', name: 'web', revision: 'abc' };
const at = new Date(Date.UTC(2026, 0, 1));

describe('PrometheusMeasurer against a stand-in HTTP server', () => {
  let server: Server;
  let address: string;
  let answer: (request: IncomingMessage, response: ServerResponse) => void;
  const seen: string[] = [];

  beforeAll(async () => {
    server = createServer((request, response) => {
      seen.push(request.url ?? '');
      answer(request, response);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    address = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const json = (status: number, body: unknown) => (_: IncomingMessage, response: ServerResponse) => {
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  };
  const template = (query: string, extra: Partial<NginxAnalysisTemplate> = {}): NginxAnalysisTemplate => ({
    name: 'error-rate',
    prometheus: { address, query },
    successCondition: 'result < 0.01',
    ...extra,
  });
  const measurer = new PrometheusMeasurer({ now: () => at, timeoutMs: 2_000 });

  it('sends the templated query and records it, the value and the time', async () => {
    answer = json(200, { status: 'success', data: { resultType: 'scalar', result: [1, '0.001'] } });
    const measurement = await measurer.measure(
      template('x{nginx="{{name}}",revision="{{revision}}"}'),
      target,
    );
    expect(measurement).toEqual({
      at: at.toISOString(),
      query: 'x{nginx="web",revision="abc"}',
      phase: 'Successful',
      value: 0.001,
    });
    expect(new URL(seen.at(-1)!, address).searchParams.get('query')).toBe('x{nginx="web",revision="abc"}');
    expect(new URL(seen.at(-1)!, address).pathname).toBe('/api/v1/query');
  });

  it('fails a value that misses the condition', async () => {
    answer = json(200, {
      status: 'success',
      data: { resultType: 'vector', result: [{ metric: {}, value: [1, '0.05'] }] },
    });
    expect(await measurer.measure(template('q'), target)).toMatchObject({ phase: 'Failed', value: 0.05 });
  });

  it('is an Error, sending nothing, for an unknown placeholder', async () => {
    const before = seen.length;
    expect(await measurer.measure(template('x{pod="{{pod}}"}'), target)).toEqual({
      at: at.toISOString(),
      query: 'x{pod="{{pod}}"}',
      phase: 'Error',
      message: 'the query names {{pod}}: only {{name}}, {{namespace}} and {{revision}} are replaced',
    });
    expect(seen.length).toBe(before);
  });

  it('is Inconclusive when Prometheus does not answer in time, or the caller cancels', async () => {
    answer = () => undefined; // never answers
    const slow = new PrometheusMeasurer({ now: () => at, timeoutMs: 200 });
    expect(await slow.measure(template('q'), target)).toMatchObject({
      phase: 'Inconclusive',
      message: 'Prometheus unreachable: no answer within 0.2 s',
    });
    const controller = new AbortController();
    const pending = measurer.measure(template('q'), target, controller.signal);
    controller.abort();
    expect(await pending).toMatchObject({
      phase: 'Inconclusive',
      message: 'Prometheus unreachable: the measurement was canceled before Prometheus answered',
    });
  });

  it('is an Error for an answer too large to be one number', async () => {
    answer = (_, response) => {
      response.writeHead(200);
      response.end('x'.repeat(5 * 1024 * 1024));
    };
    expect(await measurer.measure(template('q'), target)).toMatchObject({
      phase: 'Error',
      message: expect.stringMatching(/larger than 4194304 bytes/),
    });
  });

  it('is Inconclusive when nothing listens on the port', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const measurement = await measurer.measure(
      { ...template('q'), prometheus: { address: `http://127.0.0.1:${port}`, query: 'q' } },
      target,
    );
    expect(measurement).toMatchObject({
      phase: 'Inconclusive',
      message: `Prometheus unreachable: connect ECONNREFUSED 127.0.0.1:${port}`,
    });
  });

  it('never throws, whatever the server answers', async () => {
    const body = fc.oneof(
      fc.string(),
      fc.json(),
      fc.anything().map((data) => JSON.stringify({ status: 'success', data }) ?? ''),
    );
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 200, max: 599 }), body, async (status, text) => {
        answer = (_, response) => {
          response.writeHead(status);
          response.end(text);
        };
        const measurement = await measurer.measure(template('q'), target);
        expect(['Successful', 'Failed', 'Inconclusive', 'Error']).toContain(measurement.phase);
        if (measurement.phase !== 'Successful') expect(measurement.message).toBeTruthy();
        if (measurement.value !== undefined) expect(Number.isFinite(measurement.value)).toBe(true);
      }),
      { numRuns: 50 },
    );
  });

  it('is an Error for an address that is not a URL', async () => {
    expect(
      await measurer.measure(
        { ...template('q'), prometheus: { address: 'http://[::1', query: 'q' } },
        target,
      ),
    ).toMatchObject({ phase: 'Error', message: 'the address "http://[::1" is not a URL' });
  });
});

describe('queryUrl', () => {
  it('keeps a path prefix and encodes the query', () => {
    expect(queryUrl('http://host:9090/prometheus/', 'a{b="c d"}').toString()).toBe(
      'http://host:9090/prometheus/api/v1/query?query=a%7Bb%3D%22c+d%22%7D',
    );
  });
});
