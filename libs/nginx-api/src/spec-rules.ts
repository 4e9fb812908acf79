import { conditionError } from './analysis-condition.js';
import { isZero } from './int-or-percent.js';
import { describeConfigProblem, MAX_CONFIG_BYTES, nginxConfigProblems } from './nginx-config.js';
import { DEFAULT_PROGRESS_DEADLINE_SECONDS } from './names.js';
import { quantityValue } from './quantity.js';
import { isIpv4Host } from './tls.js';
import type { NginxResourceList, NginxSpec } from './types.js';
import type { FieldError, ValidateOptions } from './field-error.js';

/** Every analysis step names an entry of spec.analysis (a rule on the spec: it relates two of its fields). */
export const ANALYSIS_NAMED_RULE = {
  rule: '!has(self.strategy) || !has(self.strategy.canary) || !has(self.strategy.canary.steps) || self.strategy.canary.steps.all(s, !has(s.analysis) || (has(self.analysis) && self.analysis.exists(a, a.name == s.analysis.templateName)))',
  message: 'every analysis step must name an entry of spec.analysis',
  fieldPath: '.strategy.canary.steps',
};

// --- TLS and Ingress (issue 34) ---

/**
 * The rules relating spec.tls and spec.ingress to the rest of the spec: the CRD carries each on the spec (schema.ts),
 * specRuleErrors checks each with the same message at the same field.
 */
export const INGRESS_NEEDS_SERVICE_RULE = {
  rule: '!has(self.ingress) || has(self.service)',
  message: 'ingress needs spec.service: the Ingress routes to the owned Service',
  fieldPath: '.ingress',
};
export const INGRESS_TLS_NEEDS_TLS_RULE = {
  rule: '!has(self.ingress) || !has(self.ingress.tls) || !self.ingress.tls || has(self.tls)',
  message: 'ingress.tls needs spec.tls: the Ingress terminates TLS with its Secret',
  fieldPath: '.ingress.tls',
};
export const TLS_PORT_RULE = {
  rule: '!has(self.tls) || !has(self.port) || self.port != 443',
  message: 'port may not be 443 with spec.tls: the TLS server listens there',
  fieldPath: '.port',
};
export const INGRESS_HOST_NOT_IP_RULE = {
  rule: "!has(self.ingress) || !self.ingress.host.matches('^[0-9]+([.][0-9]+){3}$')",
  message: 'ingress host must be a DNS name, not an IP address',
  fieldPath: '.ingress.host',
};
export const TLS_INGRESS_RULES = [
  INGRESS_NEEDS_SERVICE_RULE,
  INGRESS_TLS_NEEDS_TLS_RULE,
  TLS_PORT_RULE,
  INGRESS_HOST_NOT_IP_RULE,
];

function tlsIngressErrors(spec: Partial<NginxSpec>): FieldError[] {
  const errors: FieldError[] = [];
  const at = (rule: { fieldPath: string }) => `spec${rule.fieldPath}`;
  if (spec.ingress && !spec.service)
    errors.push(ruleError(at(INGRESS_NEEDS_SERVICE_RULE), INGRESS_NEEDS_SERVICE_RULE.message));
  if (spec.ingress?.tls === true && !spec.tls)
    errors.push(ruleError(at(INGRESS_TLS_NEEDS_TLS_RULE), INGRESS_TLS_NEEDS_TLS_RULE.message));
  if (spec.tls && spec.port === 443) errors.push(ruleError(at(TLS_PORT_RULE), TLS_PORT_RULE.message));
  if (spec.ingress && isIpv4Host(spec.ingress.host))
    errors.push(ruleError(at(INGRESS_HOST_NOT_IP_RULE), INGRESS_HOST_NOT_IP_RULE.message));
  return errors;
}

// --- end TLS and Ingress ---

const ruleError = (field: string, message: string, reason: FieldError['reason'] = 'FieldValueInvalid') => ({
  field,
  reason,
  message: `Invalid value: ${message}`,
});

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

function limitsBelowRequests(requests: NginxResourceList, limits: NginxResourceList): boolean {
  return (['cpu', 'memory'] as const).some(
    (name) =>
      requests[name] !== undefined &&
      limits[name] !== undefined &&
      quantityValue(String(limits[name])) < quantityValue(String(requests[name])),
  );
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
 * The spec's rules that its schema alone cannot state: the CRD carries each as a CEL rule with the same message
 * (`x-kubernetes-validations` in schema.ts), so the API server enforces them too; spec.config's nginx syntax is
 * checked here only, and so are spec.analysis' conditions. `spec` has already passed the schema. A partial spec (a
 * patch) is checked only for what it holds by itself — spec.config and the conditions — as the others relate
 * fields the patch may not carry.
 */
export function specRuleErrors(spec: Partial<NginxSpec>, options: ValidateOptions = {}): FieldError[] {
  const errors: FieldError[] = [];
  if (typeof spec.config === 'string') errors.push(...configErrors(spec.config));
  errors.push(...analysisConditionErrors(spec.analysis));
  if (options.partial) return errors;

  const { requests, limits } = spec.resources ?? {};
  if (requests && limits && limitsBelowRequests(requests, limits))
    errors.push(ruleError('spec.resources', 'limits must not be below requests'));
  if (spec.service?.nodePort !== undefined && (spec.service.type ?? 'ClusterIP') === 'ClusterIP')
    errors.push(
      ruleError('spec.service', 'nodePort needs type NodePort or LoadBalancer', 'FieldValueForbidden'),
    );
  const strategy = spec.strategy;
  if (strategy?.rollingUpdate && (strategy.type ?? 'RollingUpdate') !== 'RollingUpdate')
    errors.push(
      ruleError(
        'spec.strategy',
        'rollingUpdate may be set only when type is RollingUpdate',
        'FieldValueForbidden',
      ),
    );
  if (strategy?.canary && strategy.type !== 'Canary')
    errors.push(
      ruleError('spec.strategy', 'canary may be set only when type is Canary', 'FieldValueForbidden'),
    );
  (strategy?.canary?.steps ?? []).forEach((step, index) => {
    const kinds = [step.setWeight, step.pause, step.analysis].filter((kind) => kind !== undefined);
    if (kinds.length !== 1)
      errors.push(
        ruleError(
          `spec.strategy.canary.steps[${index}]`,
          'a step is exactly one of setWeight, pause and analysis',
        ),
      );
  });
  const templates = new Set((spec.analysis ?? []).map((template) => template.name));
  if (
    (strategy?.canary?.steps ?? []).some(
      (step) => step.analysis && !templates.has(step.analysis.templateName),
    )
  )
    errors.push(ruleError('spec.strategy.canary.steps', ANALYSIS_NAMED_RULE.message));
  const rolling = strategy?.rollingUpdate;
  if (rolling && isZero(rolling.maxSurge) && isZero(rolling.maxUnavailable))
    errors.push(ruleError('spec.strategy.rollingUpdate', 'maxSurge and maxUnavailable may not both be 0'));
  const budget = spec.disruptionBudget;
  if (budget && (budget.minAvailable === undefined) === (budget.maxUnavailable === undefined))
    errors.push(ruleError('spec.disruptionBudget', 'set exactly one of minAvailable and maxUnavailable'));
  const deadline = spec.progressDeadlineSeconds ?? DEFAULT_PROGRESS_DEADLINE_SECONDS;
  if (deadline <= (spec.minReadySeconds ?? 0))
    errors.push(
      ruleError(
        'spec.progressDeadlineSeconds',
        'progressDeadlineSeconds must be greater than minReadySeconds',
      ),
    );
  errors.push(...tlsIngressErrors(spec));
  return errors;
}
