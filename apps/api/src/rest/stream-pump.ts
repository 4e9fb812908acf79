import type { Readable, Writable } from 'node:stream';

export interface PumpOptions {
  /** Cut the client when the upstream answer breaks off (a list must not look whole); else end it (a watch). */
  cutOnUpstreamFailure: boolean;
  /** A client that has not drained its full buffer within this long is cut. */
  stallMs: number;
}

/**
 * Copies an upstream answer to a client with back-pressure: upstream reading pauses while the client's buffer
 * is full, so the relay holds at most the socket's own buffer per request, and a client that has not drained
 * within `stallMs` is cut (both sides destroyed). Settles when either side is done.
 */
export function pump(upstream: Readable, client: Writable, options: PumpOptions): Promise<void> {
  return new Promise<void>((resolve) => {
    let stall: NodeJS.Timeout | undefined;
    const done = () => {
      clearTimeout(stall);
      resolve();
    };
    const failed = () => {
      if (options.cutOnUpstreamFailure) client.destroy();
      else client.end();
      done();
    };
    // Broken off before it was handed over (a stream already read from, then paused).
    if (upstream.errored || (upstream.destroyed && !upstream.readableEnded)) return failed();
    upstream.on('data', (chunk: Buffer) => {
      if (client.write(chunk)) return;
      upstream.pause();
      stall = setTimeout(() => {
        client.destroy();
        upstream.destroy();
        done();
      }, options.stallMs);
      client.once('drain', () => {
        clearTimeout(stall);
        upstream.resume();
      });
    });
    upstream.once('end', () => {
      client.end();
      done();
    });
    upstream.once('error', failed);
    upstream.once('aborted', failed);
    client.once('close', () => {
      upstream.destroy();
      done();
    });
  });
}
