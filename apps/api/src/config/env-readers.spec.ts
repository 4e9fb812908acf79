import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError } from './config-error.js';
import {
  count,
  envSchema,
  flag,
  integer,
  labelled,
  list,
  namespaces,
  oneOf,
  path,
  positive,
  readEnv,
  refusing,
  seconds,
  secondsUpTo,
  setting,
  text,
} from './env-readers.js';

/** The value `reader` gives X, or the message of the ConfigError it throws. */
function read<T>(reader: (name: string) => z.ZodType<T, string | undefined>, raw: string | undefined) {
  try {
    return readEnv(envSchema({ X: reader }), { X: raw }).X;
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
}

describe('env readers', () => {
  it('treat blank as unset, and quote the value as given when they refuse it', () => {
    expect(read(positive(5), undefined)).toBe(5);
    expect(read(positive(5), '  ')).toBe(5);
    expect(read(positive(5), ' 7 ')).toBe(7);
    expect(read(positive(5), ' -1')).toBe('X must be a positive number (got " -1")');
    expect(read(positive(5), 'Infinity')).toBe('X must be a positive number (got "Infinity")');
    expect(read(count(5), '2.1')).toBe(3);
    expect(read(text(), ' a ')).toBe('a');
    expect(read(text('d'), ' ')).toBe('d');
    expect(read(path('/base', 'dflt'), undefined)).toBe('/base/dflt');
    expect(read(path('/base'), 'f')).toBe('/base/f');
    expect(read(path('/base'), undefined)).toBeUndefined();
  });

  it('read numbers as Number() does, and say which bound a number broke', () => {
    expect(read(integer(3000, 0, 65535), '0x10')).toBe(16);
    expect(read(integer(3000, 0, 65535), '80.5')).toBe('X must be an integer from 0 to 65535 (got "80.5")');
    expect(read(seconds(2, 3600), undefined)).toBe(2000);
    expect(read(seconds(2, 3600), '1.5')).toBe(1500);
    expect(read(seconds(2, 3600), '3601')).toBe('X must be at most 3600 seconds (got "3601")');
    expect(read(seconds(2, 3600), 'soon')).toBe('X must be a positive number (got "soon")');
    expect(read(seconds(2), '99999999')).toBe(99_999_999_000);
    expect(read(secondsUpTo(10, 300), '0')).toBe(0);
    expect(read(secondsUpTo(10, 300), '301')).toBe('X must be a number of seconds from 0 to 300 (got "301")');
  });

  it('read flags in any case, choices, lists and namespaces', () => {
    expect(read(flag(true), ' FALSE ')).toBe(false);
    expect(read(flag(false), '1')).toBe(true);
    expect(read(flag(), '')).toBeUndefined();
    expect(read(flag(true), 'yes')).toBe('X must be true or false (got "yes")');
    expect(read(oneOf(['a', 'b'], 'a'), ' b ')).toBe('b');
    expect(read(oneOf(['a', 'b'], 'a', 'a or b'), 'c')).toBe('X must be a or b (got "c")');
    expect(read(list(), ' p, ,q ')).toEqual(['p', 'q']);
    expect(read(list(), undefined)).toEqual([]);
    expect(read(namespaces(), ' b, a,,b ')).toEqual(['b', 'a']);
    expect(read(namespaces(), ' ')).toBeUndefined();
    expect(read(namespaces(), 'a, Team_A ')).toMatch(/^X must be a namespace name \(got "Team_A"\): /);
  });

  it('word a refusal as a function says, with the check’s own message', () => {
    const even = setting(
      refusing<string>((value) => (Number(value) % 2 === 0 ? undefined : 'odd')),
      labelled,
    );
    expect(read(even, '4')).toBe('4');
    expect(read(even, '3')).toBe('X: odd');
  });

  it('name the first variable refused, in the order they are declared', () => {
    const schema = envSchema({ A: positive(1), B: flag(true), C: z.string().optional() });
    expect(readEnv(schema, { A: '2', C: ' raw ' })).toEqual({ A: 2, B: true, C: ' raw ' });
    expect(() => readEnv(schema, { A: 'x', B: 'x' })).toThrow(
      new ConfigError('A must be a positive number (got "x")'),
    );
    expect(() => readEnv(schema, { B: 'x' })).toThrow(new ConfigError('B must be true or false (got "x")'));
  });
});
