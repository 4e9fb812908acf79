import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { handleRequestsFirst } from '../transport/first-handler.js';
import { kubeStatus } from './kube-status.js';
import { hostAllowed, hostNameOf, isLoopbackAddress, type HostPolicy } from './host-check.js';
import { plainHttpVerdict, type PlainHttpPolicy } from '../transport/plain-http-policy.js';

export interface GateSettings {
  hosts: HostPolicy;
  plainHttp: PlainHttpPolicy;
  tlsConfigured: boolean;
}

/** The facts about a request the gate decides on. */
export interface GateRequest {
  method: string;
  url: string;
  host: string | undefined;
  encrypted: boolean;
  remoteAddress: string | undefined;
}

/** What the gate answers in the app's place; undefined lets the request through. */
export type GateAnswer = { code: 308; location: string } | { code: 400 | 421; message: string };

/** Checks the Host header first (a refused host gets no redirect to itself), then the plain-HTTP policy. */
export function gateAnswer(request: GateRequest, settings: GateSettings): GateAnswer | undefined {
  if (!hostAllowed(request.host, settings.hosts))
    return {
      code: 421,
      message:
        `this server does not answer for the host ${JSON.stringify(request.host ?? '')}: ` +
        'add it to ALLOWED_HOSTS if it is one of its names',
    };
  const verdict = plainHttpVerdict(
    {
      tlsConfigured: settings.tlsConfigured,
      encrypted: request.encrypted,
      fromLoopback: isLoopbackAddress(request.remoteAddress),
      method: request.method,
      url: request.url,
      host: hostNameOf(request.host) === undefined ? undefined : request.host,
    },
    settings.plainHttp,
  );
  if (verdict.action === 'redirect') return { code: 308, location: verdict.location };
  if (verdict.action === 'refuse') return { code: 400, message: verdict.message };
  return undefined;
}

function factsOf(request: IncomingMessage): GateRequest {
  return {
    method: request.method ?? 'GET',
    url: request.url ?? '/',
    host: request.headers.host,
    encrypted: (request.socket as { encrypted?: boolean }).encrypted === true,
    remoteAddress: request.socket.remoteAddress,
  };
}

/** The answer as status line, headers and body; a Kubernetes `Status` for refusals, nothing for a redirect. */
function rendered(answer: GateAnswer): { headers: Record<string, string>; body: string } {
  if (answer.code === 308) return { headers: { Location: answer.location, 'Content-Length': '0' }, body: '' };
  const body = JSON.stringify(kubeStatus(answer.code, answer.message));
  return {
    headers: { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) },
    body,
  };
}

function answerRequest(response: ServerResponse, answer: GateAnswer) {
  const { headers, body } = rendered(answer);
  response.writeHead(answer.code, headers);
  response.end(response.req.method === 'HEAD' ? undefined : body);
}

/** An upgrade (WebSocket) request has no response object: the answer is written to the socket, which then closes. */
function answerUpgrade(socket: Duplex, answer: GateAnswer) {
  const { headers, body } = rendered(answer);
  const lines = Object.entries({ ...headers, Connection: 'close' }).map(
    ([name, value]) => `${name}: ${value}`,
  );
  socket.on('error', () => socket.destroy());
  socket.end(`HTTP/1.1 ${answer.code} ${STATUS_CODES[answer.code]}\r\n${lines.join('\r\n')}\r\n\r\n${body}`);
}

type UpgradeListener = (request: IncomingMessage, socket: Duplex, head: Buffer) => void;

/**
 * Puts the gate in front of every request and upgrade `server` handles, the UI's, the API's and socket.io's
 * alike. It wraps the listeners present when called, so call it once everything is attached (after `app.init()`,
 * which binds socket.io) and before the server listens.
 */
export function gateRequests(server: Server, settings: GateSettings): void {
  handleRequestsFirst(server, (request, response) => {
    const answer = gateAnswer(factsOf(request), settings);
    if (answer) answerRequest(response, answer);
    return answer !== undefined;
  });

  // Without upgrade listeners Node serves upgrade requests as plain requests (above), so only wrap existing ones.
  const onUpgrade = server.listeners('upgrade') as UpgradeListener[];
  if (onUpgrade.length === 0) return;
  server.removeAllListeners('upgrade');
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const answer = gateAnswer(factsOf(request), settings);
    if (answer) return answerUpgrade(socket, answer);
    for (const listener of onUpgrade) listener.call(server, request, socket, head);
  });
}
