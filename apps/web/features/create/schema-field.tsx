import type { JsonSchema } from '@ngx/nginx-api';
import { Field } from '@/features/create/field';
import { fieldKind, type SchemaFieldKind } from '@/features/create/create-form-fields';

const PLACEHOLDERS: Partial<Record<SchemaFieldKind, string>> = {
  'int-or-percent': 'e.g. 1 or 25%',
  quantity: 'e.g. 100m or 64Mi',
};

/**
 * One input generated from a field of the shared schema: type, bounds, length, enum, default and description. The
 * value is the field's text ('true'/'' for a checkbox, '' for "not given" and the schema's default).
 */
export function SchemaField({
  id,
  fieldKey,
  schema,
  value,
  required = false,
  error,
  label,
  help,
  multiline,
  onChange,
}: {
  id: string;
  /** The field's key in its object (the input's name). */
  fieldKey: string;
  schema: JsonSchema;
  value: string;
  required?: boolean;
  error?: string;
  label: string;
  /** Help text in place of the schema's description. */
  help?: string;
  /** A textarea rather than a one-line input. */
  multiline?: boolean;
  onChange: (value: string) => void;
}) {
  const kind = fieldKind(schema, multiline);
  if (kind === 'boolean')
    return <CheckboxField {...{ id, fieldKey, schema, value, error, label, help, onChange }} />;
  return (
    <Field id={id} label={label} help={help ?? schema.description} error={error} required={required}>
      {(control) =>
        kind === 'enum' ? (
          <select
            {...control}
            name={fieldKey}
            value={value}
            onChange={(e) => onChange(e.target.value)}
            style={{ maxWidth: '20rem' }}
          >
            <option value="">Default</option>
            {schema.enum!.map((option) => (
              <option key={option}>{option}</option>
            ))}
          </select>
        ) : kind === 'multiline' ? (
          <textarea
            {...control}
            name={fieldKey}
            value={value}
            rows={10}
            spellCheck={false}
            maxLength={schema.maxLength}
            onChange={(e) => onChange(e.target.value)}
          />
        ) : (
          <input
            {...control}
            name={fieldKey}
            type={kind === 'number' ? 'number' : 'text'}
            inputMode={kind === 'number' ? 'numeric' : undefined}
            min={kind === 'number' ? schema.minimum : undefined}
            max={schema.maximum}
            step={schema.type === 'integer' ? 1 : undefined}
            maxLength={schema.maxLength}
            placeholder={schema.default !== undefined ? String(schema.default) : PLACEHOLDERS[kind]}
            spellCheck={false}
            autoComplete="off"
            value={value}
            onChange={(e) => onChange(e.target.value)}
            style={kind === 'text' ? undefined : { maxWidth: '12rem' }}
          />
        )
      }
    </Field>
  );
}

/** A boolean field: a checkbox with its label beside it, help and error below, wired like Field's. */
function CheckboxField({
  id,
  fieldKey,
  schema,
  value,
  error,
  label,
  help,
  onChange,
}: {
  id: string;
  fieldKey: string;
  schema: JsonSchema;
  value: string;
  error?: string;
  label: string;
  help?: string;
  onChange: (value: string) => void;
}) {
  const helpText = help ?? schema.description;
  const described = [helpText ? `${id}-help` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return (
    <div className="field" data-testid={`field-${id}`}>
      <span className="checkbox-row">
        <input
          id={id}
          name={fieldKey}
          type="checkbox"
          checked={value === 'true'}
          aria-invalid={error ? true : undefined}
          aria-describedby={described || undefined}
          onChange={(e) => onChange(e.target.checked ? 'true' : '')}
        />
        <label htmlFor={id}>{label}</label>
      </span>
      {helpText && (
        <p className="help" id={`${id}-help`}>
          {helpText}
        </p>
      )}
      {error && (
        <p className="field-error" id={`${id}-error`} data-testid={`error-${id}`}>
          {error}
        </p>
      )}
    </div>
  );
}
