import {
  conditionMet,
  parseCondition,
  type NginxAnalysisMeasurement,
  type NginxAnalysisTemplate,
} from '@ngx/nginx-api';

/** A verdict on one number: its phase, the value as the status can hold it, and why when not Successful. */
export type Verdict = Pick<NginxAnalysisMeasurement, 'phase' | 'value' | 'message'>;

/**
 * Judges `result` by the template: failureCondition given and met → Failed; else successCondition met →
 * Successful; else Failed. A condition that does not parse (written before the API checked them) is an Error.
 * `value` is set only when finite — JSON (and so the status) has no NaN or Infinity; the message names those.
 * A NaN result meets no condition that does not ask isNaN(…) (see conditionMet).
 */
export function judgeValue(template: NginxAnalysisTemplate, result: number): Verdict {
  const value = Number.isFinite(result) ? result : undefined;
  const shown = Number.isNaN(result) ? 'NaN' : String(result);
  const conditions: Array<['successCondition' | 'failureCondition', string]> = [
    ['successCondition', template.successCondition],
  ];
  if (template.failureCondition !== undefined)
    conditions.push(['failureCondition', template.failureCondition]);
  const parsed = new Map<string, ReturnType<typeof parseCondition>>();
  for (const [field, text] of conditions) {
    try {
      parsed.set(field, parseCondition(text));
    } catch (problem) {
      return {
        phase: 'Error',
        value,
        message: `${field} ${JSON.stringify(text)}: ${(problem as Error).message}`,
      };
    }
  }
  const failure = parsed.get('failureCondition');
  if (failure && conditionMet(failure, result))
    return { phase: 'Failed', value, message: `result ${shown} meets failureCondition ${failure.text}` };
  const success = parsed.get('successCondition')!;
  if (conditionMet(success, result)) return { phase: 'Successful', value };
  const why = Number.isNaN(result) ? ' (NaN meets no condition that does not ask isNaN(result))' : '';
  return {
    phase: 'Failed',
    value,
    message: `result ${shown} does not meet successCondition ${success.text}${why}`,
  };
}
