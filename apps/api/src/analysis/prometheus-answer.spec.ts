import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyPrometheusAnswer, classifyRequestFailure, sampleValue } from './prometheus-answer.js';

const success = (data: unknown) => JSON.stringify({ status: 'success', data });
const sample = (labels: Record<string, string>, value: string) => ({
  metric: labels,
  value: [1700000000.5, value],
});
const failure = (errorType: string, error: string) => JSON.stringify({ status: 'error', errorType, error });

describe('classifyPrometheusAnswer', () => {
  it('reads a scalar and a vector of one sample', () => {
    expect(classifyPrometheusAnswer(200, success({ resultType: 'scalar', result: [1, '0.001'] }))).toEqual({
      value: 0.001,
    });
    expect(
      classifyPrometheusAnswer(200, success({ resultType: 'vector', result: [sample({}, '0.05')] })),
    ).toEqual({ value: 0.05 });
  });

  it.each([
    ['NaN', NaN],
    ['+Inf', Infinity],
    ['-Inf', -Infinity],
    ['1e-3', 0.001],
    ['-0', -0],
  ])('reads the sample value %s', (text, value) => {
    expect(classifyPrometheusAnswer(200, success({ resultType: 'scalar', result: [1, text] }))).toEqual({
      value,
    });
  });

  it('is an Error "no data" for an empty vector', () => {
    expect(classifyPrometheusAnswer(200, success({ resultType: 'vector', result: [] }))).toEqual({
      phase: 'Error',
      message: 'no data: the query matched no series',
    });
  });

  it.each([
    [
      { resultType: 'vector', result: [sample({ a: '1' }, '1'), sample({ a: '2' }, '2')] },
      'a vector of 2 series',
    ],
    [
      { resultType: 'matrix', result: [{ metric: {}, values: [[1, '1']] }] },
      'a range vector (matrix) of 1 series',
    ],
    [{ resultType: 'string', result: [1, 'hello'] }, 'a string'],
    [{ resultType: 'vector', result: [{ metric: {}, histogram: [1, {}] }] }, 'a histogram'],
  ])('is an Error for %j, which is not one number', (data, what) => {
    expect(classifyPrometheusAnswer(200, success(data))).toEqual({
      phase: 'Error',
      message: `${what} where one number was expected: the query must reduce to a single value (e.g. sum(…))`,
    });
  });

  it('quotes Prometheus refusing a malformed query or one it cannot execute', () => {
    expect(
      classifyPrometheusAnswer(
        400,
        failure('bad_data', 'invalid parameter "query": 1:6: parse error: unclosed left parenthesis'),
      ),
    ).toEqual({
      phase: 'Error',
      message:
        'Prometheus refused the query (bad_data): invalid parameter "query": 1:6: parse error: unclosed left parenthesis',
    });
    expect(
      classifyPrometheusAnswer(422, failure('execution', 'many-to-many matching not allowed')),
    ).toMatchObject({
      phase: 'Error',
      message: 'Prometheus refused the query (execution): many-to-many matching not allowed',
    });
  });

  it.each([
    [503, failure('unavailable', 'Service Unavailable'), 'HTTP 503 (unavailable): Service Unavailable'],
    [
      503,
      failure('timeout', 'query timed out in expression evaluation'),
      'HTTP 503 (timeout): query timed out',
    ],
    [500, failure('internal', 'boom'), 'HTTP 500 (internal): boom'],
    [502, '<html>Bad Gateway</html>', 'HTTP 502: <html>Bad Gateway</html>'],
    [504, '', 'HTTP 504'],
    [429, 'slow down', 'HTTP 429: slow down'],
    [422, failure('canceled', 'context canceled'), 'HTTP 422 (canceled): context canceled'],
  ])('is Inconclusive for HTTP %d %s', (status, body, message) => {
    const reading = classifyPrometheusAnswer(status, body);
    expect(reading.phase).toBe('Inconclusive');
    expect(reading.message).toContain(`Prometheus unreachable: ${message}`);
  });

  it.each([
    [
      404,
      '404 page not found',
      /not a Prometheus API answer \(HTTP 404: 404 page not found\): is the address/,
    ],
    [200, '<html>Grafana</html>', /not a Prometheus API answer \(HTTP 200/],
    [200, '[1,2]', /not a Prometheus API answer/],
    [200, '{"status":"success"}', /it has no data.resultType/],
    [200, success({ resultType: 'table', result: [] }), /result type "table"/],
    [200, success({ resultType: 'vector', result: {} }), /result type "vector"/],
    [200, success({ resultType: 'scalar', result: [1, 'lots'] }), /not a Prometheus sample: \[1,"lots"\]/],
    [200, success({ resultType: 'scalar', result: [1, 7] }), /not a Prometheus sample/],
    [200, success({ resultType: 'vector', result: [null] }), /not a Prometheus sample/],
    [200, JSON.stringify({ status: 'pending' }), /not a Prometheus API answer \(status "pending"\)/],
    [
      401,
      failure('unauthorized', 'who are you'),
      /Prometheus answered HTTP 401 \(unauthorized\): who are you/,
    ],
    [403, '{}', /Prometheus answered HTTP 403 \(error\): no error text/],
  ])('is an Error for HTTP %d %s', (status, body, message) => {
    const reading = classifyPrometheusAnswer(status, body);
    expect(reading.phase).toBe('Error');
    expect(reading.message).toMatch(message);
  });

  it('quotes at most 300 characters of what Prometheus wrote, on one line', () => {
    const reading = classifyPrometheusAnswer(400, failure('bad_data', `line\n${'x'.repeat(1000)}`));
    expect(reading.message).toHaveLength('Prometheus refused the query (bad_data): '.length + 301);
    expect(reading.message).not.toContain('\n');
  });

  it('never throws, and always gives a value or a phase with a message', () => {
    const body = fc.oneof(
      fc.string(),
      fc.json(),
      fc.anything().map((value) => JSON.stringify({ status: 'success', data: value }) ?? ''),
      fc
        .record({
          resultType: fc.constantFrom('scalar', 'vector', 'matrix', 'string'),
          result: fc.anything(),
        })
        .map(success),
    );
    fc.assert(
      fc.property(fc.integer({ min: 100, max: 599 }), body, (status, text) => {
        const reading = classifyPrometheusAnswer(status, text);
        if (reading.phase === undefined) expect(typeof reading.value).toBe('number');
        else expect(reading.message.length).toBeGreaterThan(0);
      }),
    );
  });
});

describe('sampleValue', () => {
  it.each(['', ' 1', '1 ', '0x10', 'Infinity', 'nan', '1_000', '--1'])('refuses %j', (text) => {
    expect(sampleValue(text)).toBeUndefined();
  });
});

describe('classifyRequestFailure', () => {
  const options = { timeoutMs: 10_000, canceled: false };

  it('names the socket error under fetch', () => {
    const refused = new TypeError('fetch failed', {
      cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }),
    });
    expect(classifyRequestFailure(refused, options)).toEqual({
      phase: 'Inconclusive',
      message: 'Prometheus unreachable: connect ECONNREFUSED 127.0.0.1:9',
    });
  });

  it('says a timeout is one, and a canceled measurement was canceled', () => {
    const timeout = new DOMException('The operation was aborted due to timeout', 'TimeoutError');
    expect(classifyRequestFailure(timeout, options).message).toBe(
      'Prometheus unreachable: no answer within 10 s',
    );
    expect(
      classifyRequestFailure(new DOMException('aborted', 'AbortError'), { ...options, canceled: true }),
    ).toEqual({
      phase: 'Inconclusive',
      message: 'Prometheus unreachable: the measurement was canceled before Prometheus answered',
    });
  });

  it('makes do with anything thrown', () => {
    expect(classifyRequestFailure('boom', options).message).toBe('Prometheus unreachable: boom');
    expect(classifyRequestFailure(undefined, options).phase).toBe('Inconclusive');
  });
});
