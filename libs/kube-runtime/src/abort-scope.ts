/** A signal tied to others for a while (one request, one renewal), and the means to cut it loose. */
export interface LinkedSignal {
  readonly signal: AbortSignal;
  /** Aborts the linked signal itself (e.g. on a timeout). */
  abort(reason?: unknown): void;
  /** Detaches it from its sources; call when the request is done. */
  dispose(): void;
}

/**
 * A signal that aborts, with the same reason, as soon as any of `sources` does, or when `abort` is called.
 * Unlike AbortSignal.any, nothing is left registered on a long-lived source (a leadership term, the process's
 * stop signal) once `dispose` is called, so making one per request costs nothing after the request.
 */
export function linkedSignal(...sources: (AbortSignal | undefined)[]): LinkedSignal {
  const controller = new AbortController();
  const detach: (() => void)[] = [];
  for (const source of sources) {
    if (!source) continue;
    if (source.aborted) {
      controller.abort(source.reason);
      break;
    }
    const forward = () => controller.abort(source.reason);
    source.addEventListener('abort', forward, { once: true });
    detach.push(() => source.removeEventListener('abort', forward));
  }
  return {
    signal: controller.signal,
    abort: (reason) => controller.abort(reason),
    dispose: () => {
      for (const undo of detach.splice(0)) undo();
    },
  };
}
