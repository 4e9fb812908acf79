import { Logger, type INestApplication } from '@nestjs/common';
import type { Server } from 'node:http';
import { InFlightRequests, isStreamRequest } from '../transport/in-flight.js';

/** Longest a stopping process waits for the requests it holds (kube-apiserver's request timeout is 60 s). */
const DRAIN_MS = 20_000;

/**
 * How an API process stops on SIGTERM or SIGINT, so that a rolling update drops nothing: /readyz turns 503
 * (`stopping`), the port stops taking connections (a load balancer's next try lands on another replica), the live
 * connections are closed (their clients reconnect elsewhere), the requests in flight finish (up to DRAIN_MS), then
 * the streams left (watches, which clients resume from their resourceVersion) are cut and the app closes as
 * Nest closes it (the controller drains, the audit flushes). Then the process ends by the signal, as Nest's own
 * shutdown hooks end it. Call it with the app listening; `inFlight` must be made after the last listener wraps.
 */
export function stopGracefully(
  app: INestApplication,
  server: Server,
  inFlight: InFlightRequests,
  stopping: { beforeDrain: () => void },
): void {
  const logger = new Logger('Shutdown');
  let started = false;
  const stop = (signal: NodeJS.Signals) => {
    if (started) return;
    started = true;
    void (async () => {
      stopping.beforeDrain();
      server.close();
      const held = inFlight.size;
      const settled = await inFlight.settled(DRAIN_MS);
      logger.log(
        settled
          ? `${signal}: stopped taking connections; ${held} request(s) in flight finished`
          : `${signal}: ${inFlight.size} request(s) still in flight after ${DRAIN_MS / 1000} s are cut`,
      );
      server.closeAllConnections();
      await app.close();
      process.removeListener('SIGTERM', stop);
      process.removeListener('SIGINT', stop);
      process.kill(process.pid, signal);
    })();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

/** The in-flight count for stopGracefully: every request but the streams. */
export const countInFlight = (server: Server) => new InFlightRequests(server, isStreamRequest);
