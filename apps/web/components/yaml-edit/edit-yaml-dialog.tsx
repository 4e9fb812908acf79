'use client';

import type { Nginx } from '@ngx/nginx-api';
import { useEffect, useId, useRef } from 'react';
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
  const ref = useRef<HTMLDialogElement>(null);
  const id = useId();

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    else if (!open && dialog.open) dialog.close();
  }, [open]);

  return (
    <dialog ref={ref} className="yaml-dialog" aria-labelledby={`${id}-title`} onClose={onClose}>
      {open && <EditYamlBody nginx={nginx} onClose={onClose} titleId={`${id}-title`} />}
    </dialog>
  );
}
