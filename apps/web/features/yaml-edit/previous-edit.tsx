import { useId } from 'react';
import { CopyButton } from './copy-button';

/** The person's edit from before "Load latest", read-only, to copy from into the fresh manifest. */
export function PreviousEdit({ text }: { text: string }) {
  const id = useId();
  return (
    <details className="previous-edit" open>
      <summary>Your edit before Load latest</summary>
      <div className="field">
        <label htmlFor={id}>Your previous edit (not applied)</label>
        <textarea id={id} value={text} readOnly wrap="off" rows={10} spellCheck={false} />
      </div>
      <CopyButton text={text} label="Copy my edit" />
    </details>
  );
}
