/** Time as the runtime sees it, so queues and limiters can be tested with a fake clock. */
export interface Clock {
  /** Milliseconds since an arbitrary origin; only differences matter. */
  now(): number;
  setTimer(callback: () => void, delayMs: number): Timer;
}

export interface Timer {
  cancel(): void;
}

export const realClock: Clock = {
  now: () => performance.now(),
  setTimer(callback, delayMs) {
    const handle = setTimeout(callback, Math.max(0, delayMs));
    return { cancel: () => clearTimeout(handle) };
  },
};
