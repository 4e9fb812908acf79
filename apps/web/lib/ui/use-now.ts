'use client';

import { useSyncExternalStore } from 'react';

/** One shared 1-second clock, so ages tick without every row running its own timer. */
const listeners = new Set<() => void>();
let now = Date.now();
let timer: ReturnType<typeof setInterval> | undefined;

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  if (!timer)
    timer = setInterval(() => {
      now = Date.now();
      listeners.forEach((l) => l());
    }, 1_000);
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0 && timer) {
      clearInterval(timer);
      timer = undefined;
    }
  };
}

/** The current time in ms, updated every second (0 during the server render). */
export function useNow(): number {
  return useSyncExternalStore(
    subscribe,
    () => (timer ? now : (now = Date.now())),
    () => 0,
  );
}
