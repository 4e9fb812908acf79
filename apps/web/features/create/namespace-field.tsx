import { Field } from '@/features/create/field';

/** The namespace to create in: a select of the allowed ones for a limited token, else free text. */
export function NamespaceField({
  value,
  limited,
  error,
  help,
  onChange,
}: {
  value: string;
  /** The namespaces a limited token may write in, or null for any. */
  limited: string[] | null;
  error?: string;
  help?: string;
  onChange: (value: string) => void;
}) {
  return (
    <Field id="metadata-namespace" label="Namespace" required error={error} help={help}>
      {(control) =>
        limited ? (
          <select
            {...control}
            value={value}
            onChange={(e) => onChange(e.target.value)}
            style={{ maxWidth: '20rem' }}
          >
            {limited.map((ns) => (
              <option key={ns}>{ns}</option>
            ))}
          </select>
        ) : (
          <input
            {...control}
            value={value}
            autoComplete="off"
            spellCheck={false}
            onChange={(e) => onChange(e.target.value)}
            style={{ maxWidth: '20rem' }}
          />
        )
      }
    </Field>
  );
}
