import { FormSection } from '@/features/create/form-section';
import { SpecField, type FormBinding } from '@/features/create/spec-field';
import { SECTIONS } from '@/features/create/create-form-fields';
import { LINE_FIELDS } from '@/features/create/line-fields';

const STEPS_HELP =
  'One step a line, in order: 20% sets the weight, pause 5m waits, pause alone waits until promoted, analysis <name> runs an analysis. The analyses themselves (spec.analysis) are written in YAML mode.';

/** How pods move to a new revision: strategy and its bounds, canary steps or blue-green promotion, readiness and deadline, history, paused. */
export function RolloutSection({ form }: { form: FormBinding }) {
  return (
    <FormSection
      title="Rollout"
      summary="Strategy, surge and unavailability, canary steps, blue-green promotion, deadlines, history, paused"
      hasError={SECTIONS.rollout.some((path) => form.errorOf(`spec.${path}`))}
    >
      {SECTIONS.rollout.map((path) => (
        <SpecField
          key={path}
          path={path}
          form={form}
          multiline={path in LINE_FIELDS}
          help={path === 'strategy.canary.steps' ? STEPS_HELP : undefined}
        />
      ))}
    </FormSection>
  );
}
