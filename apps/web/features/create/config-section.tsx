'use client';

import { useMemo } from 'react';
import { NginxConfigEditor } from '@/features/config-editor/nginx-config-editor';
import { FormSection } from '@/features/create/form-section';
import type { FormBinding } from '@/features/create/spec-field';
import { localConfigProblems } from '@/features/config-editor/config-problems';

/**
 * spec.config in the nginx editor. Its syntax is checked as it is typed (the shared nginx reader, the API's own
 * check), and a problem is marked on its line; empty means the image's default server.
 */
export function ConfigSection({ form }: { form: FormBinding }) {
  const text = form.values.spec.config ?? '';
  const problems = useMemo(() => localConfigProblems(text), [text]);
  return (
    <FormSection
      title="Config"
      summary="nginx server configuration (default: the welcome page)"
      hasError={Boolean(form.errorOf('spec.config'))}
    >
      <p className="muted small" id="create-config-help">
        A server block for the image&apos;s conf.d; leave empty for the default server.
      </p>
      <NginxConfigEditor
        value={text}
        onChange={(value) => form.edit('spec.config', value)}
        problems={problems}
        label="Config"
      />
    </FormSection>
  );
}
