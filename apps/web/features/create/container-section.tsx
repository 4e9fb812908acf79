import { FormSection } from '@/features/create/form-section';
import { SpecField, type FormBinding } from '@/features/create/spec-field';
import { CONTAINER_FIELDS, SECTIONS } from '@/features/create/create-form-fields';

/** The nginx container: the pod template fields without a section of their own (a field of several inputs in a grid). */
export function ContainerSection({ form }: { form: FormBinding }) {
  return (
    <FormSection
      title="Container"
      summary="Port, health check, CPU and memory"
      hasError={[...CONTAINER_FIELDS.map(({ field }) => field), ...SECTIONS.container].some((path) =>
        form.errorOf(`spec.${path}`),
      )}
    >
      {CONTAINER_FIELDS.map(({ field, paths }) =>
        paths.length === 1 ? (
          <SpecField key={field} path={paths[0]!} form={form} />
        ) : (
          <div key={field} className="create-grid">
            {paths.map((path) => (
              <SpecField key={path} path={path} form={form} />
            ))}
          </div>
        ),
      )}
    </FormSection>
  );
}
