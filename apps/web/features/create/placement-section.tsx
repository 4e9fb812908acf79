import { FormSection } from '@/features/create/form-section';
import { SpecField, type FormBinding } from '@/features/create/spec-field';
import { SECTIONS } from '@/features/create/create-form-fields';
import { LINE_FIELDS } from '@/features/create/line-fields';

/**
 * Where the pods may run: the template fields the template table puts in `placement` (their priority, node labels
 * they need); tolerations and affinity in YAML mode.
 */
export function PlacementSection({ form }: { form: FormBinding }) {
  return (
    <FormSection
      title="Placement"
      summary="Priority class, node selector"
      hasError={SECTIONS.placement.some((path) => form.errorOf(`spec.${path}`))}
    >
      {SECTIONS.placement.map((path) => (
        <SpecField
          key={path}
          path={path}
          form={form}
          multiline={path in LINE_FIELDS}
          help={
            path === 'nodeSelector'
              ? 'One key=value a line. Tolerations, affinity and spread constraints are written in YAML mode.'
              : undefined
          }
        />
      ))}
    </FormSection>
  );
}
