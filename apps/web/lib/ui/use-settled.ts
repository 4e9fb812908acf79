'use client';

import { useEffect, useState } from 'react';

/** `value` once it has stayed the same for `delayMs` (a debounce); undefined until it first has. */
export function useSettled<T>(value: T, delayMs: number): T | undefined {
  const [settled, setSettled] = useState<T | undefined>(undefined);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), delayMs);
    return () => clearTimeout(timer);
  }, [value, delayMs]);
  return settled;
}
