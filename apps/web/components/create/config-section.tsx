import { FormSection } from '@/components/create/form-section';
import { SpecField, type FormBinding } from '@/components/create/spec-field';

/**
 * spec.config as text. Its syntax is checked as it is typed (the shared nginx reader, the API's own check), and
 * a problem names its line.
 */
export function ConfigSection({ form }: { form: FormBinding }) {
  return (
    <FormSection
      title="Config"
      summary="nginx server configuration (default: the welcome page)"
      hasError={Boolean(form.errorOf('spec.config'))}
    >
      <SpecField path="config" form={form} multiline />
    </FormSection>
  );
}
