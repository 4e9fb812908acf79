import { useEffect, useRef, type MutableRefObject } from 'react';

/**
 * Runs `load` at once, then again (debounced by `debounceMs`) whenever `trigger` changes; a run still pending
 * when the next starts, or when the component goes, is aborted. Set the returned ref's `current` to true to make
 * the next run immediate (a retry).
 */
export function useDebouncedLoad(
  load: (signal: AbortSignal) => unknown,
  trigger: unknown,
  debounceMs: number,
): MutableRefObject<boolean> {
  const first = useRef(true);
  useEffect(() => {
    const abort = new AbortController();
    const delay = first.current ? 0 : debounceMs;
    first.current = false;
    const timer = setTimeout(() => void load(abort.signal), delay);
    return () => {
      clearTimeout(timer);
      abort.abort();
    };
  }, [load, trigger, debounceMs]);
  return first;
}
