import type { Clock, Timer } from '../clock.js';

interface PendingTimer {
  at: number;
  seq: number;
  callback: () => void;
  cancelled: boolean;
}

/** A clock that moves only when told to; timers fire in due order during `advance`. */
export class FakeClock implements Clock {
  private current = 0;
  private seq = 0;
  private timers: PendingTimer[] = [];

  now(): number {
    return this.current;
  }

  setTimer(callback: () => void, delayMs: number): Timer {
    const timer: PendingTimer = {
      at: this.current + Math.max(0, delayMs),
      seq: this.seq++,
      callback,
      cancelled: false,
    };
    this.timers.push(timer);
    return { cancel: () => void (timer.cancelled = true) };
  }

  /** Moves time forward by `ms`, firing every timer that falls due, earliest first. */
  advance(ms: number): void {
    const target = this.current + ms;
    for (;;) {
      const due = this.timers
        .filter((timer) => !timer.cancelled && timer.at <= target)
        .sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.timers = this.timers.filter((timer) => timer !== due);
      this.current = due.at;
      due.callback();
    }
    this.current = target;
    this.timers = this.timers.filter((timer) => !timer.cancelled);
  }

  pendingTimers(): number {
    return this.timers.filter((timer) => !timer.cancelled).length;
  }
}
