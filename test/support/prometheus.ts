import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from './wait.js';

/** One counter series the exporter serves: its labels and how fast it grows (per second). */
export interface CounterSeries {
  labels: Record<string, string>;
  perSecond: number;
}

/**
 * An in-test exporter of `nginx_http_requests_total` counters: each series grows at its `perSecond`, by the
 * clock, so a rate() over any window Prometheus scraped reads what the test set, however irregular the scrapes.
 */
export class CounterExporter {
  private readonly counters = new Map<string, { series: CounterSeries; value: number; since: number }>();
  private server?: Server;
  port = 0;

  set(series: CounterSeries[]): void {
    const now = Date.now();
    for (const entry of this.counters.values()) this.advance(entry, now);
    for (const one of series) {
      const key = labelText(one.labels);
      const existing = this.counters.get(key);
      if (existing) existing.series = one;
      else this.counters.set(key, { series: one, value: 0, since: now });
    }
  }

  private advance(entry: { series: CounterSeries; value: number; since: number }, now: number): void {
    entry.value += (entry.series.perSecond * (now - entry.since)) / 1000;
    entry.since = now;
  }

  exposition(): string {
    const now = Date.now();
    const lines = ['# TYPE nginx_http_requests_total counter'];
    for (const [key, entry] of this.counters) {
      this.advance(entry, now);
      lines.push(`nginx_http_requests_total{${key}} ${entry.value}`);
    }
    return `${lines.join('\n')}\n`;
  }

  async start(): Promise<void> {
    this.server = createServer((_, response) => {
      response.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
      response.end(this.exposition());
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server!.close(resolve));
  }
}

const labelText = (labels: Record<string, string>) =>
  Object.entries(labels)
    .map(([name, value]) => `${name}=${JSON.stringify(value)}`)
    .join(',');

/** A port nothing listens on at the moment of asking (bound, then released). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** What a TestPrometheus scrapes: ports on 127.0.0.1 by job name (an exporter's port alone: job "exporter"). */
export type ScrapeTargets = number | Record<string, number[]>;

/**
 * Debian's prometheus (tools/setup.sh) on a free port with a temporary config and storage, scraping its targets
 * every second (honouring their labels, as kube-state-metrics is scraped) and evaluating `ruleFiles` every second.
 * `start` returns once every target is up; `stop` kills its process group and removes the temporary directory.
 */
export class TestPrometheus {
  private process?: ChildProcess;
  private directory?: string;
  private output = '';
  address = '';
  private readonly jobs: Record<string, number[]>;

  constructor(
    targets: ScrapeTargets,
    private readonly ruleFiles: string[] = [],
  ) {
    this.jobs = typeof targets === 'number' ? { exporter: [targets] } : targets;
  }

  async start(): Promise<void> {
    this.directory = await mkdtemp(join(tmpdir(), 'ngx-prometheus-'));
    const config = join(this.directory, 'prometheus.yml');
    await writeFile(
      config,
      [
        'global:',
        '  scrape_interval: 1s',
        '  evaluation_interval: 1s',
        ...(this.ruleFiles.length
          ? ['rule_files:', ...this.ruleFiles.map((file) => `  - ${JSON.stringify(file)}`)]
          : []),
        'scrape_configs:',
        ...Object.entries(this.jobs).flatMap(([job, ports]) => [
          `  - job_name: ${JSON.stringify(job)}`,
          '    honor_labels: true',
          `    static_configs: [{ targets: [${ports.map((port) => `'127.0.0.1:${port}'`).join(', ')}] }]`,
        ]),
        '',
      ].join('\n'),
    );
    // A port can be taken between asking and binding: try a few.
    for (let attempt = 0; ; attempt++) {
      const port = await freePort();
      this.address = `http://127.0.0.1:${port}`;
      this.output = '';
      const child = spawn(
        'prometheus',
        [
          `--config.file=${config}`,
          `--storage.tsdb.path=${join(this.directory, 'data')}`,
          `--web.listen-address=127.0.0.1:${port}`,
          '--log.level=warn',
        ],
        { detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      this.process = child;
      child.stdout!.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
      child.stderr!.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
      try {
        await waitFor(
          'prometheus to be ready',
          async () => {
            if (child.exitCode !== null) throw new Error(`prometheus exited: ${this.output.slice(-2000)}`);
            return (await fetch(`${this.address}/-/ready`)).ok;
          },
          { timeoutMs: 60_000, intervalMs: 250 },
        );
        break;
      } catch (error) {
        await this.kill();
        if (attempt >= 2 || !/address already in use/.test(this.output)) throw error;
      }
    }
    const targets = Object.values(this.jobs).flat().length;
    await waitFor('every target to be up', async () => (await this.query('up == 1')).length === targets, {
      timeoutMs: 60_000,
      intervalMs: 250,
    });
  }

  /** The result array of an instant query that must succeed. */
  async query(query: string): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>> {
    const url = new URL(`${this.address}/api/v1/query`);
    url.searchParams.set('query', query);
    const answer = (await (await fetch(url)).json()) as { status: string; data: { result: unknown } };
    if (answer.status !== 'success') throw new Error(`query ${query} failed: ${JSON.stringify(answer)}`);
    return answer.data.result as Array<{ metric: Record<string, string>; value: [number, string] }>;
  }

  /** GET /api/v1/<path> (rules, alerts, …): its `data`, from an answer that must succeed. */
  async api<T>(path: string): Promise<T> {
    const answer = (await (await fetch(`${this.address}/api/v1/${path}`)).json()) as {
      status: string;
      data: T;
    };
    if (answer.status !== 'success') throw new Error(`${path} failed: ${JSON.stringify(answer)}`);
    return answer.data;
  }

  private async kill(): Promise<void> {
    const child = this.process;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      return;
    }
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }, 10_000);
    await exited;
    clearTimeout(timer);
  }

  async stop(): Promise<void> {
    await this.kill();
    if (this.directory) await rm(this.directory, { recursive: true, force: true });
    this.directory = undefined;
  }
}
