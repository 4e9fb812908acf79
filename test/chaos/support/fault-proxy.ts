import { readFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Agent, request as httpsRequest } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { API_SERVER, CLUSTER_DIR } from '../../support/paths.js';

export type Fault = '500' | '429' | 'stall';

/** One request through the proxy: when it arrived, what it was, and the status answered (none if never). */
export interface ProxiedRequest {
  at: number;
  method: string;
  path: string;
  status?: number;
  answeredAt?: number;
}

export interface FaultProxyStats {
  requests: number;
  faults: Record<Fault, number>;
  /** When each request arrived (ms since the epoch), for rates over time. */
  arrivals: number[];
}

/**
 * The test's own HTTP proxy on loopback between a controller and kube-apiserver: the controller talks plain HTTP
 * to it (a kubeconfig without credentials), it talks TLS with the admin certificate to the API server. It can
 * fail a share of requests (500, 429 with Retry-After, or a connection that never answers), cut every open
 * watch, answer watches with a `410 Gone` ERROR event, as the API server does for a compacted version, and hold
 * back what watches deliver (`watchLagMs`), as a loaded API server or client does.
 */
export class FaultProxy {
  faultRate = 0;
  /** Collections (path endings, e.g. `/pods`) whose next watch is answered with an ERROR 410 event. */
  readonly goneWatches = new Set<string>();
  /** Requests whose path contains one of these are never answered (a stalled connection), until removed. */
  readonly stalledPaths = new Set<string>();
  /**
   * How long each part of a watch stream is held before it is passed on (in order); 0 for none. A change to it
   * applies to what arrives from then on.
   */
  watchLagMs = 0;
  /** Every request, in arrival order. */
  readonly log: ProxiedRequest[] = [];
  readonly stats: FaultProxyStats = { requests: 0, faults: { '500': 0, '429': 0, stall: 0 }, arrivals: [] };
  private readonly watches = new Set<IncomingMessage>();
  private readonly stalled = new Set<Socket>();
  private readonly server = createServer((req, res) => this.handle(req, res));
  private readonly upstream: Agent;
  private readonly apiServer: URL;
  private port = 0;

  constructor(apiServer = API_SERVER) {
    const pki = join(CLUSTER_DIR, 'pki');
    this.apiServer = new URL(apiServer);
    this.upstream = new Agent({
      keepAlive: true,
      ca: readFileSync(join(pki, 'ca.crt')),
      cert: readFileSync(join(pki, 'admin.crt')),
      key: readFileSync(join(pki, 'admin.key')),
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /**
   * A kubeconfig for the controller: this proxy as its server, no credentials (the proxy holds them). client-node
   * refuses a plain-HTTP server unless TLS verification is declared off, though there is no TLS to verify.
   */
  kubeconfig(): string {
    const file = join(mkdtempSync(join(tmpdir(), 'ngx-proxy-')), 'kubeconfig');
    writeFileSync(
      file,
      `apiVersion: v1\nkind: Config\nclusters: [{name: proxy, cluster: {server: "${this.url}", insecure-skip-tls-verify: true}}]\n` +
        `users: [{name: none, user: {}}]\ncontexts: [{name: proxy, context: {cluster: proxy, user: none}}]\n` +
        'current-context: proxy\n',
    );
    return file;
  }

  /** Ends every open watch stream at once, as a network cut or a restarting API server would. */
  breakWatches(): number {
    const count = this.watches.size;
    for (const watch of this.watches) watch.destroy();
    this.watches.clear();
    return count;
  }

  /** Requests per second over [from, to) (ms since the epoch). */
  rate(from: number, to: number): number {
    return this.stats.arrivals.filter((t) => t >= from && t < to).length / ((to - from) / 1000);
  }

  async close(): Promise<void> {
    this.breakWatches();
    for (const socket of this.stalled) socket.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.upstream.destroy();
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    this.stats.requests++;
    this.stats.arrivals.push(Date.now());
    const entry: ProxiedRequest = { at: Date.now(), method: req.method ?? 'GET', path: req.url ?? '' };
    this.log.push(entry);
    res.once('finish', () => {
      entry.status = res.statusCode;
      entry.answeredAt = Date.now();
    });
    const path = (req.url ?? '').split('?')[0]!;
    if ([...this.stalledPaths].some((part) => path.includes(part))) return this.stall(req);
    const isWatch = /[?&]watch=(true|1)/.test(req.url ?? '');
    const collection = [...this.goneWatches].find((ending) =>
      (req.url ?? '').split('?')[0]!.endsWith(ending),
    );
    if (isWatch && collection) {
      this.goneWatches.delete(collection);
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(
        `${JSON.stringify({
          type: 'ERROR',
          object: {
            kind: 'Status',
            apiVersion: 'v1',
            status: 'Failure',
            reason: 'Expired',
            code: 410,
            message: 'too old resource version',
          },
        })}\n`,
      );
      return;
    }
    if (this.faultRate > 0 && Math.random() < this.faultRate) return this.fail(req, res);

    const upstream = httpsRequest(
      {
        hostname: this.apiServer.hostname,
        port: this.apiServer.port,
        path: req.url,
        method: req.method,
        headers: { ...req.headers, host: this.apiServer.host },
        agent: this.upstream,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        if (isWatch) {
          res.flushHeaders();
          this.watches.add(answer);
          answer.once('close', () => this.watches.delete(answer));
          this.relayLagging(answer, res);
        } else answer.pipe(res);
        // A cut upstream (breakWatches, an error) must cut the client too, or its watch would hang silent.
        answer.once('close', () => {
          if (!answer.complete) res.destroy();
        });
      },
    );
    upstream.once('error', () => res.destroy());
    res.once('close', () => upstream.destroy());
    req.pipe(upstream);
  }

  /** Passes a watch stream on, each part `watchLagMs` after it arrived, in arrival order. */
  private relayLagging(answer: IncomingMessage, res: ServerResponse): void {
    const queue: { due: number; chunk: Buffer | undefined }[] = [];
    let timer: NodeJS.Timeout | undefined;
    const pump = () => {
      timer = undefined;
      const now = Date.now();
      while (queue.length > 0 && queue[0]!.due <= now) {
        const { chunk } = queue.shift()!;
        if (chunk) res.write(chunk);
        else res.end();
      }
      if (queue.length > 0) timer = setTimeout(pump, queue[0]!.due - now);
    };
    const hold = (chunk: Buffer | undefined) => {
      queue.push({ due: Date.now() + this.watchLagMs, chunk });
      if (!timer) pump();
    };
    answer.on('data', (chunk: Buffer) => hold(chunk));
    answer.once('end', () => hold(undefined));
    res.once('close', () => clearTimeout(timer));
  }

  /** Never answers; the client must give up on its own. Closed after a minute, or when the proxy closes. */
  private stall(req: IncomingMessage): void {
    req.resume();
    const socket = req.socket;
    this.stalled.add(socket);
    socket.once('close', () => this.stalled.delete(socket));
    setTimeout(() => socket.destroy(), 60_000).unref();
  }

  private fail(req: IncomingMessage, res: ServerResponse): void {
    const fault = (['500', '429', 'stall'] as const)[Math.floor(Math.random() * 3)]!;
    this.stats.faults[fault]++;
    req.resume();
    if (fault === 'stall') return this.stall(req);
    const code = Number(fault);
    res.writeHead(code, {
      'Content-Type': 'application/json',
      ...(code === 429 ? { 'Retry-After': '1' } : {}),
    });
    res.end(
      JSON.stringify({
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        code,
        reason: code === 429 ? 'TooManyRequests' : 'InternalError',
        message: `injected by the test's fault proxy (${fault})`,
        ...(code === 429 ? { details: { retryAfterSeconds: 1 } } : {}),
      }),
    );
  }
}
