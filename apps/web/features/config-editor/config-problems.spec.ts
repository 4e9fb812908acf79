import { describe, expect, it } from 'vitest';
import {
  configProblemsOfCauses,
  lineCountOf,
  localConfigProblems,
  placeProblems,
  problemOfCause,
} from './config-problems';

describe('problemOfCause', () => {
  it("takes the line and nginx's message from the API's spec.config message", () => {
    expect(
      problemOfCause({
        field: 'spec.config',
        reason: 'FieldValueInvalid',
        message: 'Invalid value: "…": not valid nginx configuration: line 3: unexpected "}"',
      }),
    ).toEqual({ line: 3, message: 'unexpected "}"' });
  });

  it("prefers nginx's line to a line named earlier in the message", () => {
    expect(
      problemOfCause({
        field: 'spec.config',
        message: 'Invalid value: "line 1: x": not valid nginx configuration: line 4: unexpected end of file',
      }),
    ).toEqual({ line: 4, message: 'unexpected end of file' });
  });

  it('reads a bare `line N: …` message too', () => {
    expect(problemOfCause({ field: 'spec.config', message: 'line 12: unexpected end of file' })).toEqual({
      line: 12,
      message: 'unexpected end of file',
    });
  });

  it('puts a message naming no line on line 1, whole', () => {
    expect(
      problemOfCause({ field: 'spec.config', message: 'Too long: may not be more than 262144 bytes' }),
    ).toEqual({ line: 1, message: 'Too long: may not be more than 262144 bytes' });
  });

  it('falls back to the reason when there is no message', () => {
    expect(problemOfCause({ field: 'spec.config', reason: 'FieldValueInvalid' })).toEqual({
      line: 1,
      message: 'FieldValueInvalid',
    });
  });
});

describe('configProblemsOfCauses', () => {
  it('keeps only the causes on spec.config, in order', () => {
    expect(
      configProblemsOfCauses([
        { field: 'spec.replicas', message: 'Invalid value: 99' },
        { field: 'spec.config', message: 'x: line 2: unexpected ";"' },
        { field: 'spec.config', message: 'x: line 5: unexpected "{"' },
      ]),
    ).toEqual([
      { line: 2, message: 'unexpected ";"' },
      { line: 5, message: 'unexpected "{"' },
    ]);
  });

  it('is empty without such a cause', () => {
    expect(configProblemsOfCauses([])).toEqual([]);
    expect(configProblemsOfCauses([{ field: 'metadata.name', message: 'line 1: no' }])).toEqual([]);
  });
});

describe('localConfigProblems', () => {
  it('finds what the API would refuse, at its line', () => {
    expect(localConfigProblems('server {\n  listen 80;\n}\n}\n')).toEqual([
      { line: 4, message: 'unexpected "}"' },
    ]);
  });

  it('is empty for valid text and for no text', () => {
    expect(localConfigProblems('server {\n  listen 80;\n}\n')).toEqual([]);
    expect(localConfigProblems('')).toEqual([]);
  });
});

describe('placeProblems', () => {
  it('keeps lines inside the text', () => {
    expect(
      placeProblems(
        [
          { line: 9, message: 'unexpected end of file' },
          { line: 0, message: 'zero' },
          { line: 2, message: 'ok' },
        ],
        3,
      ),
    ).toEqual([
      { line: 3, message: 'unexpected end of file' },
      { line: 1, message: 'zero' },
      { line: 2, message: 'ok' },
    ]);
  });

  it('drops duplicates and treats an empty text as one line', () => {
    expect(
      placeProblems(
        [
          { line: 4, message: 'a' },
          { line: 1, message: 'a' },
        ],
        0,
      ),
    ).toEqual([{ line: 1, message: 'a' }]);
  });
});

describe('lineCountOf', () => {
  it('counts line feeds plus one', () => {
    expect(lineCountOf('')).toBe(1);
    expect(lineCountOf('a\nb')).toBe(2);
    expect(lineCountOf('a\nb\n')).toBe(3);
  });
});
