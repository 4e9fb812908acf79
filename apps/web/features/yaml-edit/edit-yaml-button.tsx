'use client';

import type { Nginx } from '@ngx/nginx-api';
import { useState } from 'react';
import { EditYamlDialog } from './edit-yaml-dialog';
import './yaml-edit.css';

/**
 * "Edit YAML" for someone who may write this Nginx (nothing at all otherwise: the page's read-only note says
 * why): opens the manifest editor with a dry-run review and a conditional apply.
 */
export function EditYamlButton({ nginx, writable }: { nginx: Nginx; writable: boolean }) {
  const [open, setOpen] = useState(false);
  if (!writable) return null;
  return (
    <>
      <button type="button" onClick={() => setOpen(true)}>
        Edit YAML
      </button>
      <EditYamlDialog open={open} nginx={nginx} onClose={() => setOpen(false)} />
    </>
  );
}
