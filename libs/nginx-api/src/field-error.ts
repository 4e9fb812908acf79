/** One problem with one field, in the shape of a Kubernetes `StatusCause`. */
export interface FieldError {
  /** The field's path, as the API server writes it: `spec.replicas`, `metadata.name`. */
  field: string;
  reason:
    | 'FieldValueRequired'
    | 'FieldValueInvalid'
    | 'FieldValueTypeInvalid'
    | 'FieldValueNotSupported'
    | 'FieldValueForbidden'
    | 'FieldValueTooLong'
    | 'FieldValueTooMany'
    | 'FieldValueDuplicate'
    | 'FieldValueUnknown';
  message: string;
}

export interface ValidateOptions {
  /**
   * A patch document (merge patch or apply configuration) rather than a whole object: required fields may be
   * absent, and `null` means "remove", which is refused only for required fields.
   */
  partial?: boolean;
}
