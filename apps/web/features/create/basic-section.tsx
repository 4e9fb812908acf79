import { Field } from '@/features/create/field';
import { NamespaceField } from '@/features/create/namespace-field';
import { SpecField, type FormBinding } from '@/features/create/spec-field';
import { schemaAt } from '@/features/create/create-form-fields';

/** Name, namespace, replicas and image: always shown, the only fields a new Nginx needs. */
export function BasicSection({
  form,
  limited,
  allowedImages,
}: {
  form: FormBinding;
  /** The namespaces a limited token may write in, or null. */
  limited: string[] | null;
  /** The image prefixes the server allows, or null/undefined for any image. */
  allowedImages?: string[] | null;
}) {
  return (
    <fieldset className="create-basic">
      <legend className="visually-hidden">Basic</legend>
      <Field
        id="metadata-name"
        label="Name"
        required
        error={form.errorOf('metadata.name')}
        help="Lowercase letters, digits and '-', at most 63 characters."
      >
        {(control) => (
          <input
            {...control}
            name="name"
            value={form.values.name}
            autoComplete="off"
            spellCheck={false}
            autoFocus
            onChange={(e) => form.edit('metadata.name', e.target.value)}
            style={{ maxWidth: '28rem' }}
          />
        )}
      </Field>
      <NamespaceField
        value={form.values.namespace}
        limited={limited}
        error={form.errorOf('metadata.namespace')}
        onChange={(value) => form.edit('metadata.namespace', value)}
      />
      <SpecField path="replicas" form={form} />
      <SpecField
        path="image"
        form={form}
        help={
          allowedImages
            ? `${schemaAt('image').description ?? ''} Allowed: ${allowedImages.join(', ')} (nginx:1.27 is docker.io/library/nginx:1.27).`
            : undefined
        }
      />
    </fieldset>
  );
}
