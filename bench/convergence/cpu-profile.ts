import { createServer } from 'node:net';
import WebSocket from 'ws';

/** V8's CPU profile (the DevTools protocol's Profiler.Profile; what `node --cpu-prof` writes). */
export interface CpuProfile {
  nodes: {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
    children?: number[];
  }[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** A free local TCP port, for a child's `--inspect=127.0.0.1:<port>`. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Profiles a Node.js process that runs with `--inspect=127.0.0.1:<port>`, over the DevTools protocol: one
 * profile per `start()`/`stop()` pair, so each phase of a run gets its own. Sampling costs the profiled process
 * a little CPU, so a run that reports CPU seconds should say it was profiled.
 */
export async function inspectorProfiler(port: number, samplingIntervalUs = 1000) {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as {
    webSocketDebuggerUrl: string;
  }[];
  const socket = new WebSocket(targets[0]!.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  let nextId = 1;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  socket.on('message', (data) => {
    const message = JSON.parse(String(data)) as {
      id?: number;
      result?: unknown;
      error?: { message: string };
    };
    const waiter = message.id === undefined ? undefined : pending.get(message.id);
    if (!waiter) return;
    pending.delete(message.id!);
    if (message.error) waiter.reject(new Error(message.error.message));
    else waiter.resolve(message.result);
  });
  const call = <T>(method: string, params: object = {}) =>
    new Promise<T>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      socket.send(JSON.stringify({ id, method, params }));
    });
  await call('Profiler.enable');
  await call('Profiler.setSamplingInterval', { interval: samplingIntervalUs });
  return {
    start: () => call('Profiler.start'),
    stop: async () => (await call<{ profile: CpuProfile }>('Profiler.stop')).profile,
    close: () => socket.close(),
  };
}
