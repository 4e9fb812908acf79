import { Duplex } from 'node:stream';

/**
 * One end of an in-memory connection: what is written to it is read from the other end, with back-pressure (a
 * write completes only once the other end's reader has room), and ending or destroying one end ends the other.
 * Node.js 20 has no `stream.duplexPair`; this is the small part of it the HTTP/2 bridge needs.
 */
class ConnectionEnd extends Duplex {
  peer!: ConnectionEnd;
  /** A write the peer's reader had no room for: completed when it reads again. */
  private waiting: (() => void) | undefined;

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    if (this.peer.push(chunk)) done();
    else this.peer.onRoom(done);
  }

  override _final(done: (error?: Error | null) => void): void {
    this.peer.push(null);
    done();
  }

  override _read(): void {
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.();
  }

  override _destroy(error: Error | null, done: (error?: Error | null) => void): void {
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.();
    if (!this.peer.destroyed) this.peer.destroy();
    done(error);
  }

  private onRoom(done: () => void): void {
    this.waiting = done;
  }
}

/** Two connected ends: `[a, b]`, a's writes read from b and b's from a. */
export function memoryConnection(): [Duplex, Duplex] {
  const a = new ConnectionEnd({ allowHalfOpen: false });
  const b = new ConnectionEnd({ allowHalfOpen: false });
  a.peer = b;
  b.peer = a;
  return [a, b];
}
