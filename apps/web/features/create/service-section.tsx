import { Field } from '@/features/create/field';
import { FormSection } from '@/features/create/form-section';
import { SchemaField } from '@/features/create/schema-field';
import { SpecField, type FormBinding } from '@/features/create/spec-field';
import { schemaAt, SECTIONS } from '@/features/create/create-form-fields';

const BUDGETS = [
  { value: '', label: 'None' },
  { value: 'minAvailable', label: 'Minimum available' },
  { value: 'maxUnavailable', label: 'Maximum unavailable' },
];

/** The Service the controller keeps for the pods, and the PodDisruptionBudget (one bound of the two). */
export function ServiceSection({ form }: { form: FormBinding }) {
  const { values } = form;
  return (
    <FormSection
      title="Service"
      summary="Service type and ports, disruption budget"
      hasError={[...SECTIONS.service, ...SECTIONS.budget].some((path) => form.errorOf(`spec.${path}`))}
    >
      <SchemaField
        id="service-enabled"
        fieldKey="serviceEnabled"
        label="Create a Service"
        schema={{ type: 'boolean', description: schemaAt('service').description }}
        value={values.serviceEnabled ? 'true' : ''}
        onChange={(value) => form.edit('service.enabled', value)}
      />
      {SECTIONS.service.map((path) => (
        <SpecField key={path} path={path} form={form} />
      ))}
      <Field
        id="spec-disruptionBudget"
        label="Disruption budget"
        help={schemaAt('disruptionBudget').description}
      >
        {(control) => (
          <select
            {...control}
            value={values.budget}
            onChange={(e) => form.edit('spec.disruptionBudget', e.target.value)}
            style={{ maxWidth: '20rem' }}
          >
            {BUDGETS.map((b) => (
              <option key={b.value} value={b.value}>
                {b.label}
              </option>
            ))}
          </select>
        )}
      </Field>
      {SECTIONS.budget.map((path) => (
        <SpecField key={path} path={path} form={form} />
      ))}
    </FormSection>
  );
}
