import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/** Answers a request itself (true), or declines it (false) so that the server's listeners get it as before. */
export type FirstHandler = (request: IncomingMessage, response: ServerResponse) => boolean;

type RequestListener = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * Puts `handler` in front of the `request` listeners `server` has when called (Express's, socket.io's polling
 * transport, the UI's): a request it declines reaches them unchanged. Call it once they are all attached and
 * before the server listens; handlers installed later run before those installed earlier.
 */
export function handleRequestsFirst(server: Server, handler: FirstHandler): void {
  const listeners = server.listeners('request') as RequestListener[];
  server.removeAllListeners('request');
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    if (handler(request, response)) return;
    for (const listener of listeners) listener.call(server, request, response);
  });
}
