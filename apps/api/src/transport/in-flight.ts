import type { IncomingMessage, Server } from 'node:http';

/**
 * The requests a server is answering, counted from the moment each arrives until its response closes (finished,
 * or its connection gone), leaving out those `isStream` names: answers that last until one side gives up (watches), which a
 * stopping server ends instead of waiting for.
 */
export class InFlightRequests {
  private count = 0;
  private readonly waiters = new Set<() => void>();

  constructor(server: Server, isStream: (request: IncomingMessage) => boolean) {
    server.prependListener('request', (request: IncomingMessage, response) => {
      if (isStream(request)) return;
      this.count++;
      response.once('close', () => {
        this.count--;
        if (this.count === 0) for (const wake of this.waiters) wake();
      });
    });
  }

  get size(): number {
    return this.count;
  }

  /** Resolves once none is in flight, or after `timeoutMs`, with whether none is. */
  settled(timeoutMs: number): Promise<boolean> {
    if (this.count === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.waiters.delete(wake);
        resolve(this.count === 0);
      };
      const timer = setTimeout(wake, timeoutMs);
      this.waiters.add(wake);
    });
  }
}

/**
 * A request whose answer is a stream with no end of its own: a watch (`?watch=true`, the timeline's included, and
 * `/watch/` paths) or the live gateway's transport.
 */
export function isStreamRequest(request: IncomingMessage): boolean {
  const url = request.url ?? '';
  const queryAt = url.indexOf('?');
  const watch = queryAt >= 0 ? new URLSearchParams(url.slice(queryAt + 1)).get('watch') : null;
  return (
    watch === 'true' || watch === '1' || /^\/apis?\/[^?]*\/watch\//.test(url) || url.startsWith('/socket.io')
  );
}
