import { FormSection } from '@/components/create/form-section';
import { SpecField, type FormBinding } from '@/components/create/spec-field';
import { SECTIONS } from '@/lib/create-form-fields';

/** The nginx container: its port, the readiness path, and CPU and memory requested and capped. */
export function ContainerSection({ form }: { form: FormBinding }) {
  return (
    <FormSection
      title="Container"
      summary="Port, health check, CPU and memory"
      hasError={[...SECTIONS.container, 'resources'].some((path) => form.errorOf(`spec.${path}`))}
    >
      <SpecField path="port" form={form} />
      <SpecField path="healthCheckPath" form={form} />
      <div className="create-grid">
        {SECTIONS.container.slice(2).map((path) => (
          <SpecField key={path} path={path} form={form} />
        ))}
      </div>
    </FormSection>
  );
}
