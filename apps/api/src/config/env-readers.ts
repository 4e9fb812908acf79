import { resolve } from 'node:path';
import { z } from 'zod';
import { namespaceError } from '@ngx/nginx-api';
import { ConfigError } from './config-error.js';

/** The process's environment, as process.env holds it. */
export type Environment = Record<string, string | undefined>;

/** What a refused setting's ConfigError says, given the refusal's own message (`problem`). */
type Message = (problem: string, raw: string | undefined, name: string) => string;

/** `<NAME> <problem>`. */
export const named: Message = (problem, _raw, name) => `${name} ${problem}`;
/** The refusal's message as it is (it names the variable itself). */
export const asIs: Message = (problem) => problem;
/** `<NAME>: <problem>`. */
export const labelled: Message = (problem, _raw, name) => `${name}: ${problem}`;

/** Reads one variable, named by the schema's key (see envSchema). */
type Setting<T> = (name: string) => z.ZodType<T, string | undefined>;

/**
 * One environment variable: `type` reads its value, trimmed with blank counting as unset (untrimmed with
 * `{ trim: false }`). When `type` refuses it, the ConfigError says `<NAME> <expected> (got "<raw>")`, `expected`
 * being the refusal's own message when the check gave one; a function `message` words it otherwise (a `type`
 * that refuses nothing needs neither).
 */
export function setting<T>(
  type: z.ZodType<T>,
  message: string | Message = '',
  { trim = true } = {},
): Setting<T> {
  return (name) =>
    z
      .string()
      .optional()
      .transform((raw, ctx) => {
        const read = type.safeParse(trim ? raw?.trim() || undefined : raw, {
          error: () => (typeof message === 'string' ? message : undefined),
        });
        if (read.success) return read.data;
        const problem = read.error.issues[0]?.message ?? '';
        ctx.addIssue({
          code: 'custom',
          message:
            typeof message === 'string' ? `${name} ${problem} (got "${raw}")` : message(problem, raw, name),
        });
        return z.NEVER;
      });
}

/** The schema of an environment: each key names a variable, each value reads it (one of the readers below). */
export function envSchema<
  S extends Record<string, Setting<unknown> | z.ZodType<unknown, string | undefined>>,
>(settings: S) {
  const shape = Object.fromEntries(
    Object.entries(settings).map(([name, read]) => [name, typeof read === 'function' ? read(name) : read]),
  );
  return z.object(
    shape as { [K in keyof S]: S[K] extends Setting<infer T> ? z.ZodType<T, string | undefined> : S[K] },
  );
}

/** The environment read through `schema`, or a ConfigError naming the first variable it refuses. */
export function readEnv<T>(schema: z.ZodType<T, Environment>, env: Environment): T {
  const read = schema.safeParse(env);
  if (read.success) return read.data;
  throw new ConfigError(read.error.issues[0]?.message ?? 'invalid environment');
}

/** A zod check from a function that says what is wrong with a value, or undefined when nothing is. */
export const refusing = <T>(problem: (value: T) => string | undefined) =>
  z.custom<T>().superRefine((value, ctx) => {
    const found = problem(value);
    if (found !== undefined) ctx.addIssue({ code: 'custom', message: found });
  });

/** A zod type from a parser that throws on a value it refuses, its message saying why. */
export const parsedBy = <T>(parse: (value: string | undefined) => T) =>
  z
    .string()
    .optional()
    .transform((value, ctx): T => {
      try {
        return parse(value);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message });
        return z.NEVER;
      }
    });

/** Free text (trimmed); `fallback` when unset. */
export const text = <F extends string | undefined = undefined>(fallback?: F) =>
  setting(
    z
      .string()
      .optional()
      .transform((value) => value ?? (fallback as F)),
  );

/** A file or folder, resolved against `cwd`; `fallback` when unset. */
export const resolvedPath = <F extends string | undefined = undefined>(cwd: string, fallback?: F) =>
  z
    .string()
    .optional()
    .transform((value) => {
      const given = value ?? fallback;
      return (given === undefined ? undefined : resolve(cwd, given)) as F extends string
        ? string
        : string | undefined;
    });

export const path = <F extends string | undefined = undefined>(cwd: string, fallback?: F) =>
  setting(resolvedPath(cwd, fallback));

/** true/1 or false/0, in any case; `fallback` when unset (undefined: no fallback). */
export const flag = <F extends boolean | undefined = undefined>(fallback?: F) =>
  setting(
    z
      .stringbool({ truthy: ['true', '1'], falsy: ['false', '0'] })
      .optional()
      .transform((value) => value ?? (fallback as F)),
    'must be true or false',
  );

/** A number above 0; `fallback` when unset. */
export const positive = (fallback: number) =>
  setting(z.coerce.number().positive().default(fallback), 'must be a positive number');

/** A positive number rounded up to a whole one (a count); `fallback` when unset. */
export const count = (fallback: number) =>
  setting(z.coerce.number().positive().transform(Math.ceil).default(fallback), 'must be a positive number');

/** A whole number from `min` to `max`; `fallback` when unset. */
export const integer = (fallback: number, min: number, max: number) =>
  setting(
    z.coerce.number().int().min(min).max(max).default(fallback),
    `must be an integer from ${min} to ${max}`,
  );

/** A positive duration in seconds, at most `max` (timers cannot wait longer than about 24 days), read in ms. */
export const seconds = (fallback: number, max = Infinity) =>
  setting(
    z.coerce
      .number()
      .positive()
      .max(max, `must be at most ${max} seconds`)
      .transform((value) => value * 1000)
      .default(fallback * 1000),
    'must be a positive number',
  );

/** One of `values` (`listed` as the message lists them); `fallback` when unset. */
export const oneOf = <const V extends readonly [string, ...string[]]>(
  values: V,
  fallback: V[number],
  listed = values.join(', '),
) => setting(z.enum(values).default(fallback), `must be ${listed}`);

/** Comma-separated entries, trimmed, blanks dropped; `fallback` only when the variable is not set at all. */
export const commaSeparated = (fallback = '') =>
  z
    .string()
    .optional()
    .transform((value) =>
      (value ?? fallback)
        .split(',')
        .map((entry) => entry.trim())
        .filter(Boolean),
    );

export const list = () => setting(commaSeparated(), undefined, { trim: false });

/** A number of seconds from 0 to `max`; `fallback` when unset. */
export const secondsUpTo = (
  fallback: number,
  max: number,
  message: string | Message = `must be a number of seconds from 0 to ${max}`,
) => setting(z.coerce.number().min(0).max(max).default(fallback), message);

/** Namespace names separated by commas: the distinct ones in order; undefined when none are named. */
export const namespaces = () =>
  setting(
    commaSeparated()
      .pipe(
        refusing<string[]>((names) => {
          const name = names.find(namespaceError);
          return name && `must be a namespace name (got "${name}"): ${namespaceError(name)}`;
        }),
      )
      .transform((names): readonly string[] | undefined =>
        names.length > 0 ? [...new Set(names)] : undefined,
      ),
    named,
    { trim: false },
  );
