'use client';

import { useMemo, useRef, type Ref } from 'react';

/**
 * A plain `<textarea>` (no wrapping) with line numbers beside it, so a message can point at a line; lines in
 * `markedLines` are marked in the gutter. The gutter is decoration: the lines are also named in text elsewhere.
 */
export function NumberedTextarea({
  id,
  value,
  onChange,
  markedLines,
  describedBy,
  readOnly = false,
  textareaRef,
  rows = 18,
}: {
  id: string;
  value: string;
  onChange?: (value: string) => void;
  markedLines?: ReadonlySet<number>;
  describedBy?: string;
  readOnly?: boolean;
  textareaRef?: Ref<HTMLTextAreaElement>;
  rows?: number;
}) {
  const gutter = useRef<HTMLDivElement>(null);
  const count = useMemo(() => value.split('\n').length, [value]);

  return (
    <div className="numbered-textarea">
      <div className="numbered-gutter" ref={gutter} aria-hidden="true">
        {Array.from({ length: count }, (_, i) => (
          <span key={i} className={markedLines?.has(i + 1) ? 'marked' : undefined}>
            {i + 1}
          </span>
        ))}
      </div>
      <textarea
        id={id}
        ref={textareaRef}
        value={value}
        rows={rows}
        wrap="off"
        spellCheck={false}
        autoComplete="off"
        readOnly={readOnly}
        aria-invalid={markedLines?.size ? true : undefined}
        aria-describedby={describedBy}
        onChange={(event) => onChange?.(event.target.value)}
        onScroll={(event) => {
          if (gutter.current) gutter.current.scrollTop = event.currentTarget.scrollTop;
        }}
      />
    </div>
  );
}
