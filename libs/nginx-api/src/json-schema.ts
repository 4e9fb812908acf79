/** A CEL validation rule of a CRD schema (`x-kubernetes-validations`); `self` is the value it sits on. */
export interface ValidationRule {
  rule: string;
  message?: string;
  /** The cause's reason when the rule fails (FieldValueInvalid unless said). */
  /** Where the cause points, relative to the value the rule sits on (`.progressDeadlineSeconds`). */
  fieldPath?: string;
  reason?: 'FieldValueInvalid' | 'FieldValueForbidden' | 'FieldValueRequired' | 'FieldValueDuplicate';
}

/** A structural OpenAPI v3 schema, as the CRD's openAPIV3Schema takes it. */
export type JsonSchema = {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  description?: string;
  properties?: Record<string, JsonSchema>;
  /** A map's values (an object without declared properties, keyed freely): each is checked against it. */
  additionalProperties?: JsonSchema;
  maxProperties?: number;
  required?: string[];
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  enum?: string[];
  default?: unknown;
  /** An integer or a string (`x-kubernetes-int-or-string`): minimum applies to the integer, pattern to the string. */
  'x-kubernetes-int-or-string'?: true;
  anyOf?: JsonSchema[];
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-validations'?: ValidationRule[];
};
