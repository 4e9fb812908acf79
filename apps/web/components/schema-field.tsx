import type { JsonSchema } from '@ngx/nginx-api';
import { Field } from './field';

const humanize = (key: string) =>
  key.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/^./, (c) => c.toUpperCase());

/** One input generated from a field of the shared schema: type, bounds, length, default and description. */
export function SchemaField({
  id,
  fieldKey,
  schema,
  value,
  required,
  error,
  help,
  onChange,
}: {
  id: string;
  fieldKey: string;
  schema: JsonSchema;
  value: string;
  required: boolean;
  error?: string;
  /** Help text in place of the schema's description. */
  help?: string;
  onChange: (value: string) => void;
}) {
  const numeric = schema.type === 'integer' || schema.type === 'number';
  return (
    <Field
      id={id}
      label={humanize(fieldKey)}
      help={help ?? schema.description}
      error={error}
      required={required}
    >
      {(control) => (
        <input
          {...control}
          name={fieldKey}
          type={numeric ? 'number' : 'text'}
          inputMode={numeric ? 'numeric' : undefined}
          min={schema.minimum}
          max={schema.maximum}
          step={schema.type === 'integer' ? 1 : undefined}
          maxLength={schema.maxLength}
          placeholder={schema.default !== undefined ? String(schema.default) : undefined}
          spellCheck={false}
          autoComplete="off"
          value={value}
          onChange={(e) => onChange(e.target.value)}
          style={numeric ? { maxWidth: '10rem' } : undefined}
        />
      )}
    </Field>
  );
}

/** A form field's text as the schema's type: '' is "not given"; a number field's text that is not a number stays text. */
export function fromInput(schema: JsonSchema, raw: string): unknown {
  if (raw.trim() === '') return undefined;
  if (schema.type === 'integer' || schema.type === 'number') {
    const n = Number(raw);
    return Number.isFinite(n) ? n : raw;
  }
  return raw;
}

/** A validation message without the "Invalid value: x: spec.replicas " prefix the form already shows. */
export function shortMessage(field: string, message: string): string {
  let text = message.replace(/^Invalid value: .*?: /, '');
  if (text.startsWith(`${field} `)) text = text.slice(field.length + 1);
  return text.charAt(0).toUpperCase() + text.slice(1);
}
