import { FormSection } from '@/components/create/form-section';
import { SpecField, type FormBinding } from '@/components/create/spec-field';
import { SECTIONS } from '@/lib/create/create-form-fields';

/** How pods move to a new revision: strategy and its bounds, readiness and deadline, history, paused. */
export function RolloutSection({ form }: { form: FormBinding }) {
  return (
    <FormSection
      title="Rollout"
      summary="Strategy, surge and unavailability, deadlines, history, paused"
      hasError={SECTIONS.rollout.some((path) => form.errorOf(`spec.${path}`))}
    >
      {SECTIONS.rollout.map((path) => (
        <SpecField key={path} path={path} form={form} />
      ))}
    </FormSection>
  );
}
