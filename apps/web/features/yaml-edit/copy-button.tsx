'use client';

import { useState } from 'react';
import { copyText } from './copy-text';

/** Copies `text`, then says whether it worked (when it did not, the text is shown for selecting by hand). */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [said, setSaid] = useState<string | undefined>();
  return (
    <>
      <button
        type="button"
        onClick={() =>
          copyText(text).then(
            () => setSaid('Copied'),
            () => setSaid('Copy failed: select the text instead'),
          )
        }
        onBlur={() => setSaid(undefined)}
      >
        {label}
      </button>
      <span className="muted small" role="status">
        {said}
      </span>
    </>
  );
}
