import type { ReactNode } from 'react';

/**
 * A labelled form field with its help text and error wired to the input through aria-describedby. `children`
 * renders the control with the given props.
 */
export function Field({
  id,
  label,
  help,
  error,
  required,
  children,
}: {
  id: string;
  label: string;
  help?: ReactNode;
  error?: string;
  required?: boolean;
  children: (control: {
    id: string;
    'aria-invalid': true | undefined;
    'aria-describedby': string | undefined;
    'aria-required': true | undefined;
  }) => ReactNode;
}) {
  const described = [help ? `${id}-help` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return (
    <div className="field" data-testid={`field-${id}`}>
      {/* The asterisk stays outside the label, so the field's accessible name is just its label. */}
      <span className="label-row">
        <label htmlFor={id}>{label}</label>
        {required && (
          <span className="required" aria-hidden="true">
            *
          </span>
        )}
      </span>
      {children({
        id,
        'aria-invalid': error ? true : undefined,
        'aria-describedby': described || undefined,
        'aria-required': required ? true : undefined,
      })}
      {help && (
        <p className="help" id={`${id}-help`}>
          {help}
        </p>
      )}
      {error && (
        <p className="field-error" id={`${id}-error`} data-testid={`error-${id}`}>
          {error}
        </p>
      )}
    </div>
  );
}
