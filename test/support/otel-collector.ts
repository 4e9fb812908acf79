// The OpenTelemetry Collector of tools/otel-collector (an OTLP/HTTP receiver and the debug exporter), built on
// demand (a no-op once built), run on a free port, with the spans it received parsed from what it prints.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLUSTER_DIR, ROOT } from './paths.js';
import { freePort } from './prometheus.js';
import { waitFor } from './wait.js';

/** One span as the collector received it (ids in hex; parentId '' for a root span). */
export interface CollectedSpan {
  traceId: string;
  parentId: string;
  spanId: string;
  name: string;
  kind: string;
  status: string;
  /** The span's attributes, each value as the debug exporter prints it without its type (`Str(GET)` → `GET`). */
  attributes: Record<string, string>;
  /** Its resource's attributes (service.name, …). */
  resource: Record<string, string>;
}

/** Builds the collector unless built (tools/otel-collector/build.sh: cached; the first build takes ~2 min). */
export function buildCollector(): string {
  execFileSync('bash', [join(ROOT, 'tools/otel-collector/build.sh')], { cwd: ROOT, stdio: 'ignore' });
  return join(CLUSTER_DIR, 'bin/otelcol-ngx');
}

const ATTRIBUTE = /^\s*-> ([^:]+): \w+\((.*)\)$/;
const FIELD = /^\s{4}(Trace ID|Parent ID|ID|Name|Kind|Status code)\s*: ?(.*)$/;
const FIELD_NAMES: Record<string, keyof CollectedSpan> = {
  'Trace ID': 'traceId',
  'Parent ID': 'parentId',
  ID: 'spanId',
  Name: 'name',
  Kind: 'kind',
  'Status code': 'status',
};

/** The spans in the debug exporter's detailed output (its own line format, read line by line). */
export function parseDebugExporterOutput(text: string): CollectedSpan[] {
  const spans: CollectedSpan[] = [];
  let resource: Record<string, string> = {};
  let span: CollectedSpan | undefined;
  let reading: 'resource' | 'span' | undefined;
  for (const line of text.split('\n')) {
    if (line.startsWith('ResourceSpans #')) {
      resource = {};
      span = undefined;
      reading = undefined;
    } else if (line === 'Resource attributes:') reading = 'resource';
    else if (line.startsWith('Span #')) {
      span = {
        traceId: '',
        parentId: '',
        spanId: '',
        name: '',
        kind: '',
        status: '',
        attributes: {},
        resource,
      };
      spans.push(span);
      reading = undefined;
    } else if (line === 'Attributes:' && span) reading = 'span';
    else if (/^(Events|Links|ScopeSpans)/.test(line)) reading = undefined;
    else {
      const field = span && FIELD.exec(line);
      if (field) span![FIELD_NAMES[field[1]!]! as 'name'] = field[2]!.trim();
      const attribute = ATTRIBUTE.exec(line);
      if (attribute && reading === 'resource') resource[attribute[1]!] = attribute[2]!;
      if (attribute && reading === 'span') span!.attributes[attribute[1]!] = attribute[2]!;
    }
  }
  return spans;
}

const BATCH_LINE = /^Traces\t.*"spans": (\d+)/gm;

/** How many spans the debug exporter's basic output counts (a line per batch: `Traces {…, "spans": N}`). */
export function countDebugExporterSpans(text: string): number {
  let spans = 0;
  for (const batch of text.matchAll(BATCH_LINE)) spans += Number(batch[1]);
  return spans;
}

/**
 * The collector running with OTLP/HTTP on `endpoint`. At `detailed` verbosity (the default) `spans()` is every
 * span received so far; at `basic` it prints a line per batch, only `spanCount()` is known, and the collector
 * costs the machine almost nothing (what a benchmark measuring the app's own CPU wants).
 */
export class TestCollector {
  private child: ChildProcess | undefined;
  private output = '';
  private directory = '';
  endpoint = '';

  constructor(private readonly verbosity: 'detailed' | 'basic' = 'detailed') {}

  async start(): Promise<void> {
    const binary = buildCollector();
    const port = await freePort();
    this.endpoint = `http://127.0.0.1:${port}`;
    this.directory = await mkdtemp(join(tmpdir(), 'ngx-otelcol-'));
    const config = join(this.directory, 'config.yaml');
    // No internal metrics (they would take port 8888), only warnings in its own log; spans to stdout.
    await writeFile(
      config,
      [
        'receivers: { otlp: { protocols: { http: { endpoint: "127.0.0.1:' + port + '" } } } }',
        `exporters: { debug: { verbosity: ${this.verbosity}, use_internal_logger: false } }`,
        'service:',
        '  telemetry: { metrics: { level: none }, logs: { level: warn } }',
        '  pipelines: { traces: { receivers: [otlp], exporters: [debug] } }',
      ].join('\n'),
    );
    const child = spawn(binary, [`--config=file:${config}`], { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    child.stdout.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    let errors = '';
    child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    await waitFor(
      'the OpenTelemetry Collector to listen',
      async () => {
        if (child.exitCode !== null) throw new Error(`the collector exited: ${errors.slice(-2000)}`);
        // Its OTLP/HTTP receiver answers 405 to a GET once it listens.
        return fetch(`${this.endpoint}/v1/traces`).then(
          () => true,
          () => false,
        );
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
  }

  spans(): CollectedSpan[] {
    if (this.verbosity !== 'detailed') throw new Error('spans() needs the collector at detailed verbosity');
    return parseDebugExporterOutput(this.output);
  }

  spanCount(): number {
    return this.verbosity === 'detailed' ? this.spans().length : countDebugExporterSpans(this.output);
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    if (this.directory) await rm(this.directory, { recursive: true, force: true });
  }
}
