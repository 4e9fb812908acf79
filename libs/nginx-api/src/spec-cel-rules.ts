// The CEL rules the spec carries on itself (they relate two of its fields): the schema declares them, the CRD and
// our validation (cel-rules.ts) evaluate them.
import type { ValidationRule } from './json-schema.js';

/** Every analysis step names an entry of spec.analysis (a rule on the spec: it relates two of its fields). */
export const ANALYSIS_NAMED_RULE: ValidationRule = {
  rule: '!has(self.strategy) || !has(self.strategy.canary) || !has(self.strategy.canary.steps) || self.strategy.canary.steps.all(s, !has(s.analysis) || (has(self.analysis) && self.analysis.exists(a, a.name == s.analysis.templateName)))',
  message: 'every analysis step must name an entry of spec.analysis',
  fieldPath: '.strategy.canary.steps',
};

/** The rules relating spec.tls and spec.ingress to the rest of the spec: the CRD carries each on the spec. */
export const INGRESS_NEEDS_SERVICE_RULE: ValidationRule = {
  rule: '!has(self.ingress) || has(self.service)',
  message: 'ingress needs spec.service: the Ingress routes to the owned Service',
  fieldPath: '.ingress',
};
export const INGRESS_TLS_NEEDS_TLS_RULE: ValidationRule = {
  rule: '!has(self.ingress) || !has(self.ingress.tls) || !self.ingress.tls || has(self.tls)',
  message: 'ingress.tls needs spec.tls: the Ingress terminates TLS with its Secret',
  fieldPath: '.ingress.tls',
};
export const TLS_PORT_RULE: ValidationRule = {
  rule: '!has(self.tls) || !has(self.port) || self.port != 443',
  message: 'port may not be 443 with spec.tls: the TLS server listens there',
  fieldPath: '.port',
};
export const INGRESS_HOST_NOT_IP_RULE: ValidationRule = {
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
