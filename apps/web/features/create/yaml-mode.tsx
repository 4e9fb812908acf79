import { NGINX_API_VERSION, NGINX_KIND } from '@ngx/nginx-api';
import { Field } from '@/features/create/field';
import { NamespaceField } from '@/features/create/namespace-field';
import type { YamlCheck } from '@/features/create/create-yaml';

/** The YAML mode: a whole manifest, checked against the shared schema as it is typed. */
export function YamlMode({
  text,
  check,
  namespace,
  namespaceError,
  limited,
  onText,
  onNamespace,
}: {
  text: string;
  check: YamlCheck;
  namespace: string;
  namespaceError?: string;
  /** The namespaces a limited token may write in, or null. */
  limited: string[] | null;
  onText: (text: string) => void;
  onNamespace: (namespace: string) => void;
}) {
  return (
    <>
      <NamespaceField
        value={namespace}
        limited={limited}
        error={namespaceError}
        help="Used when the manifest names no namespace."
        onChange={onNamespace}
      />
      <Field
        id="manifest-yaml"
        label="Manifest (YAML)"
        required
        error={check.problems.length && text.trim() ? check.problems.join('\n') : undefined}
        help={
          <>
            An <code>{NGINX_API_VERSION}</code> <code>{NGINX_KIND}</code>, as for <code>kubectl apply</code>.
          </>
        }
      >
        {(control) => (
          <textarea
            {...control}
            value={text}
            rows={14}
            spellCheck={false}
            onChange={(e) => onText(e.target.value)}
          />
        )}
      </Field>
    </>
  );
}
