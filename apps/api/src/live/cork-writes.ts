import type { Socket } from 'socket.io';

/** The parts of engine.io's connection and ws's WebSocket this reaches into (neither exports the TCP socket). */
interface Connection {
  on(event: 'flush', listener: () => void): void;
  transport?: { name?: string; socket?: { _socket?: TcpSocket } };
}
interface TcpSocket {
  cork(): void;
  uncork(): void;
  destroyed?: boolean;
}

/**
 * Makes the frames engine.io sends in one flush of a client's write buffer leave in one TCP write. engine.io
 * sends each packet as its own WebSocket frame and ws writes each frame at once: a burst of changes to one client
 * cost a system call per change, about half of the app's CPU with 100 live clients (bench:fanout's profile).
 * The socket is corked when a flush starts and uncorked on the next tick, as Node's documentation advises, so
 * nothing waits longer than the code already running. Long-polling clients are left as they are (each poll
 * answer already carries the whole buffer).
 */
export function corkFlushes(socket: Socket): void {
  const connection = socket.conn as unknown as Connection;
  connection.on('flush', () => {
    const transport = connection.transport;
    const tcp = transport?.name === 'websocket' ? transport.socket?._socket : undefined;
    if (!tcp || typeof tcp.cork !== 'function' || tcp.destroyed) return;
    tcp.cork();
    process.nextTick(() => tcp.uncork());
  });
}
