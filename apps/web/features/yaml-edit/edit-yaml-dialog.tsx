'use client';

import type { Nginx } from '@ngx/nginx-api';
import { useId } from 'react';
import { ModalDialog } from '@/components/ui/modal-dialog';
import { EditYamlBody } from './edit-yaml-body';

/**
 * The Edit YAML modal `<dialog>` (focus stays inside, Escape closes). Its content is made anew at each opening,
 * from the Nginx as it is then.
 */
export function EditYamlDialog({
  open,
  nginx,
  onClose,
}: {
  open: boolean;
  nginx: Nginx;
  onClose: () => void;
}) {
  const id = useId();

  return (
    <ModalDialog open={open} className="yaml-dialog" aria-labelledby={`${id}-title`} onClose={onClose}>
      {open && <EditYamlBody nginx={nginx} onClose={onClose} titleId={`${id}-title`} />}
    </ModalDialog>
  );
}
