import { FormSection } from '@/features/create/form-section';
import { SpecField, type FormBinding } from '@/features/create/spec-field';
import { SECTIONS } from '@/features/create/create-form-fields';

/** The TLS Secret the pods serve with, and the Ingress (offered only with the Service it routes to). */
export function TlsSection({ form }: { form: FormBinding }) {
  return (
    <FormSection
      title="TLS and Ingress"
      summary="TLS Secret, Ingress host and class"
      hasError={SECTIONS.tls.some((path) => form.errorOf(`spec.${path}`))}
    >
      {SECTIONS.tls.map((path) => (
        <SpecField key={path} path={path} form={form} />
      ))}
      {!form.values.serviceEnabled && (
        <p className="help">An Ingress needs the Service: switch it on to add one.</p>
      )}
    </FormSection>
  );
}
