import { SchemaField } from '@/features/create/schema-field';
import {
  fieldLabel,
  idFor,
  isIncluded,
  isRequiredPath,
  schemaAt,
  type CreateFormValues,
} from '@/features/create/create-form-fields';

/** What a section needs of the form: its values, the error to show at a field, and how to edit one. */
export interface FormBinding {
  values: CreateFormValues;
  errorOf: (field: string) => string | undefined;
  edit: (field: string, value: string) => void;
}

/**
 * The input of the spec field at `path` (`service.port`), generated from the shared schema; nothing when the
 * other values leave the field out of what is sent (nodePort of a ClusterIP Service…).
 */
export function SpecField({
  path,
  form,
  help,
  multiline,
}: {
  path: string;
  form: FormBinding;
  help?: string;
  multiline?: boolean;
}) {
  if (!isIncluded(path, form.values)) return null;
  const field = `spec.${path}`;
  return (
    <SchemaField
      id={idFor(field)}
      fieldKey={path.split('.').at(-1)!}
      schema={schemaAt(path)}
      label={fieldLabel(path)}
      required={isRequiredPath(path)}
      value={form.values.spec[path] ?? ''}
      error={form.errorOf(field)}
      help={help}
      multiline={multiline}
      onChange={(value) => form.edit(field, value)}
    />
  );
}
