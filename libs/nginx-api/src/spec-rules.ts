import { conditionError } from './analysis-condition.js';
import { describeConfigProblem, MAX_CONFIG_BYTES, nginxConfigProblems } from './nginx-config.js';
import type { NginxSpec } from './types.js';
import type { FieldError } from './field-error.js';
import { headerRegexProblem } from './header-regex.js';

/** Bytes of `text` in UTF-8, counted without an encoder (this module also runs in the browser). */
function utf8Length(text: string): number {
  let bytes = 0;
  for (const char of text) {
    const code = char.codePointAt(0)!;
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
  }
  return bytes;
}

/** Why spec.config cannot be mounted: too large, or not syntactically valid nginx (naming the line). */
export function configErrors(config: string): FieldError[] {
  if (utf8Length(config) > MAX_CONFIG_BYTES)
    return [
      {
        field: 'spec.config',
        reason: 'FieldValueTooLong',
        message: `Too long: may not be more than ${MAX_CONFIG_BYTES} bytes`,
      },
    ];
  const [problem] = nginxConfigProblems(config);
  return problem
    ? [
        {
          field: 'spec.config',
          reason: 'FieldValueInvalid',
          message: `Invalid value: "…": not valid nginx configuration: ${describeConfigProblem(problem)}`,
        },
      ]
    : [];
}

/**
 * Why spec.analysis' conditions cannot be judged: each successCondition / failureCondition must parse as
 * analysis-condition.ts' grammar. The CRD cannot check this (CEL has no such parser); the API's writes and the
 * admission webhook can.
 */
export function analysisConditionErrors(analysis: unknown): FieldError[] {
  if (!Array.isArray(analysis)) return [];
  const errors: FieldError[] = [];
  analysis.forEach((template: unknown, index) => {
    if (typeof template !== 'object' || template === null) return;
    for (const key of ['successCondition', 'failureCondition'] as const) {
      const text = (template as Record<string, unknown>)[key];
      if (typeof text !== 'string') continue;
      const problem = conditionError(text);
      if (problem)
        errors.push({
          field: `spec.analysis[${index}].${key}`,
          reason: 'FieldValueInvalid',
          message: `Invalid value: ${JSON.stringify(text)}: not a condition of result: ${problem}`,
        });
    }
  });
  return errors;
}

/**
 * Why a setHeaderRoute step's regex cannot be a Gateway's: each must compile as RE2 does (header-regex.ts). CEL
 * cannot say so (a regex that fails to compile is an evaluation error, not a verdict).
 */
export function headerRouteErrors(strategy: unknown): FieldError[] {
  const steps = (strategy as { canary?: { steps?: unknown } } | undefined)?.canary?.steps;
  if (!Array.isArray(steps)) return [];
  const errors: FieldError[] = [];
  steps.forEach((step: { setHeaderRoute?: { match?: unknown } } | null, index) => {
    const match = step?.setHeaderRoute?.match;
    if (!Array.isArray(match)) return;
    match.forEach((entry: { headerValue?: { regex?: unknown } } | null, at) => {
      const regex = entry?.headerValue?.regex;
      const problem = typeof regex === 'string' ? headerRegexProblem(regex) : undefined;
      if (problem)
        errors.push({
          field: `spec.strategy.canary.steps[${index}].setHeaderRoute.match[${at}].headerValue.regex`,
          reason: 'FieldValueInvalid',
          message: `Invalid value: ${JSON.stringify(regex)}: not a regular expression: ${problem}`,
        });
    });
  });
  return errors;
}

/**
 * The spec's checks that no CEL rule states, and so only our API makes: spec.config's nginx syntax,
 * spec.analysis' conditions (their grammar) and header routes' regexes. `spec` has passed the schema; a partial spec (a patch) is checked for
 * what it holds, as both read one field only.
 */
export function specTextErrors(spec: Partial<NginxSpec>): FieldError[] {
  return [
    ...(typeof spec.config === 'string' ? configErrors(spec.config) : []),
    ...analysisConditionErrors(spec.analysis),
    ...headerRouteErrors(spec.strategy),
  ];
}
