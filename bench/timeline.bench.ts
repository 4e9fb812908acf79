// npm run bench:timeline [-- --quick] [-- --reads-only | --ingest-only] — reports, never asserts. Needs PostgreSQL
// (TEST_POSTGRES_URL; the npm script defaults it to the local one tools/db/postgres-up.sh starts) and, for the ingest, the local cluster.
// The timeline at scale, on PostgreSQL, the production store:
// - ingest: N Nginxes × R pods created, then rolled out (a new image for all), by our controller on the audit
//   webhook's port (kube-apiserver's audit events come in too), with the audit trail and timeline on, next to the
//   same with AUDIT=false in the same run: how long each took, the records stored and per second, whether the
//   writer kept up (queue depth after, records dropped), the app's CPU seconds and peak RSS;
// - reads: M stored records (generated in PostgreSQL, shaped like the ingest's: pod transitions and Events,
//   reconciles naming the pods they created, changes) of K Nginxes, then one Nginx's first timeline page and a
//   pod's `why`, p50 and p95 over many random Nginxes, next to the bare indexed query of the same page (the floor).
// Writes bench/results/timeline.{md,json}.
import pg from 'pg';
import { startApp, metric, type AppProcess } from '../test/support/app-process.js';
import { migrate, postgresAdmin, postgresDatabase, type TestDatabase } from '../test/support/database.js';
import { runtimeClient } from '../test/support/runtime.js';
import { sleep, waitFor } from '../test/support/wait.js';
import { cpuSeconds, peakRssMb } from './convergence/process-stats.js';
import { quantile, wholeMs } from './latency-stats.js';
import { runStamp, writeResults } from './results-file.js';
import { AuditDatabase } from '../apps/api/src/audit/audit-database.js';
import { databaseTarget } from '../apps/api/src/config/database-target.js';
import { TimelineReader } from '../apps/api/src/timeline/timeline-reader.js';
import { podWhy } from '../apps/api/src/timeline/pod-why.js';

const QUICK = process.argv.includes('--quick');
const READS = !process.argv.includes('--ingest-only');
const INGEST = !process.argv.includes('--reads-only');
const NGINXES = Number(process.env.BENCH_COUNT ?? (QUICK ? 50 : 1000));
const REPLICAS = Number(process.env.BENCH_REPLICAS ?? (QUICK ? 4 : 10));
const STORED = Number(process.env.BENCH_TIMELINE_ENTRIES ?? (QUICK ? 1_000_000 : 10_000_000));
/** Nginxes the stored records are spread over (1,000 records each at 10 million). */
const STORED_NGINXES = Math.max(10, Math.round(STORED / 1000));
const READ_SAMPLES = QUICK ? 60 : 200;
const WEBHOOK_PORT = '3000';

const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : '—');

interface IngestRun {
  audit: boolean;
  createSeconds: number;
  rolloutSeconds: number;
  cpuSeconds: number;
  peakRssMb: number;
  stored: { changes: number; reconciles: number; entries: number };
  perSecond: number;
  queueDepthAfter: number;
  dropped: number;
}

/** N Nginxes × R pods created then rolled out by the app on the webhook's port, audit on or off. */
async function ingest(audit: boolean): Promise<IngestRun> {
  const client = runtimeClient({ qps: 5000, burst: 5000, userAgent: 'nginx-bench' });
  const namespace = `bench-timeline-${Date.now().toString(36)}`;
  const database = await postgresDatabase();
  await migrate(database.url);
  await client.request({
    method: 'POST',
    path: '/api/v1/namespaces',
    body: { metadata: { name: namespace } },
  });
  let app: AppProcess | undefined;
  try {
    app = await startApp({
      WEB_MODE: 'off',
      PORT: WEBHOOK_PORT,
      WATCH_NAMESPACE: namespace,
      LEADER_ELECTION: 'false',
      INSTALL_CRD: 'false',
      LOG_FORMAT: 'json',
      AUDIT: String(audit),
      DATABASE_URL: database.url,
      KUBE_API_QPS: '100000',
      KUBE_API_BURST: '100000',
    });
    const pid = app.pid;
    const cpuBefore = cpuSeconds(pid);
    const nginxes = `/apis/mycompany.com/v1/namespaces/${namespace}/nginxes`;
    const names = Array.from({ length: NGINXES }, (_, index) => `web-${index}`);
    const inParallel = async (work: (name: string) => Promise<unknown>) => {
      const queue = [...names];
      await Promise.all(
        Array.from({ length: 32 }, async () => {
          for (let name = queue.shift(); name; name = queue.shift()) await work(name);
        }),
      );
    };
    type Listed = {
      items: {
        metadata: { generation?: number };
        spec: { image?: string };
        status?: { observedGeneration?: number; readyReplicas?: number; updatedReplicas?: number };
      }[];
    };
    const settled = async (image: string) => {
      const { items } = await client.request<Listed>({ path: nginxes });
      return (
        items.length === NGINXES &&
        items.every(
          (item) =>
            item.spec.image === image &&
            item.status?.observedGeneration === item.metadata.generation &&
            item.status?.readyReplicas === REPLICAS &&
            item.status?.updatedReplicas === REPLICAS,
        )
      );
    };

    let started = performance.now();
    await inParallel((name) =>
      client.request({
        method: 'POST',
        path: nginxes,
        body: {
          apiVersion: 'mycompany.com/v1',
          kind: 'Nginx',
          metadata: { name },
          spec: { replicas: REPLICAS, image: 'nginx:1.27' },
        },
      }),
    );
    await waitFor('every Nginx ready', () => settled('nginx:1.27'), {
      timeoutMs: 1_200_000,
      intervalMs: 1000,
    });
    const createSeconds = (performance.now() - started) / 1000;

    started = performance.now();
    await inParallel((name) =>
      client.request({
        method: 'PATCH',
        path: `${nginxes}/${name}`,
        contentType: 'application/merge-patch+json',
        body: { spec: { image: 'nginx:1.28' } },
      }),
    );
    await waitFor('every Nginx rolled out', () => settled('nginx:1.28'), {
      timeoutMs: 1_200_000,
      intervalMs: 1000,
    });
    const rolloutSeconds = (performance.now() - started) / 1000;
    // What the writer still holds is written within a few seconds; what it could not keep up with shows here.
    await sleep(5000);
    const run: IngestRun = {
      audit,
      createSeconds,
      rolloutSeconds,
      cpuSeconds: cpuSeconds(pid) - cpuBefore,
      peakRssMb: peakRssMb(pid),
      stored: await storedCounts(database.url),
      perSecond: 0,
      queueDepthAfter: await metric(app, 'nginx_audit_queue_depth'),
      dropped: await metric(app, 'nginx_audit_records_dropped_total'),
    };
    const total = run.stored.changes + run.stored.reconciles + run.stored.entries;
    run.perSecond = total / (createSeconds + rolloutSeconds);
    return run;
  } finally {
    await app?.stop();
    await client.request({ method: 'DELETE', path: `/api/v1/namespaces/${namespace}` }).catch(() => {});
    await database.drop();
    client.close();
  }
}

async function storedCounts(url: string): Promise<IngestRun['stored']> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    const count = async (table: string) =>
      Number((await db.query(`SELECT count(*) AS n FROM "${table}"`)).rows[0].n);
    return {
      changes: await count('ChangeRecord'),
      reconciles: await count('ReconcileRecord'),
      entries: await count('TimelineEntry'),
    };
  } finally {
    await db.end();
  }
}

interface ReadFigures {
  stored: { changes: number; reconciles: number; entries: number; generateSeconds: number };
  page: { p50: number; p95: number };
  bareQuery: { p50: number; p95: number };
  why: { p50: number; p95: number; answered: number };
}

/**
 * Fills a fresh database with `STORED` records spread over `STORED_NGINXES` Nginxes in namespace `bench`, in the
 * shape the app stores them, with every index in place (loaded without them, then indexed, as a restore would).
 * Per Nginx: 20 pods, each created → scheduled → running → ready and, for half, terminating → deleted; Events;
 * one reconcile per pod created naming it; a change per generation.
 */
async function generate(database: TestDatabase): Promise<ReadFigures['stored']> {
  const db = new pg.Client({ connectionString: database.url });
  await db.connect();
  const started = performance.now();
  try {
    const indexes = (
      await db.query(
        `SELECT indexname, indexdef FROM pg_indexes WHERE tablename IN ('TimelineEntry','ReconcileRecord','ChangeRecord') AND indexname NOT LIKE '%_pkey'`,
      )
    ).rows as { indexname: string; indexdef: string }[];
    for (const index of indexes) await db.query(`DROP INDEX "${index.indexname}"`);
    const k = STORED_NGINXES;
    const changes = k * 10;
    const reconciles = k * 20;
    const entries = STORED - changes - reconciles;
    // Times: the newest record 1 s ago, one record of each Nginx every 10 s going back (about 3 hours a Nginx).
    await db.query(`
      INSERT INTO "ChangeRecord" (at, actor, role, verb, namespace, name, "specBefore", "specAfter", code, uid,
        "resourceVersion", "userAgent", door, source, "kubeUser", generation, "joinKey", "dedupeKey", "chainSeq", hash)
      SELECT now() - (g / ${k}) * interval '1000 s' - interval '1 s', 'alice', '', 'patch', 'bench', 'nginx-' || (g % ${k}),
        '{"replicas":10}', '{"replicas":10,"image":"nginx:1.28"}', 200, 'uid-' || (g % ${k}), g::text, 'kubectl/v1.36',
        'kube-apiserver', 'audit-webhook', 'alice', 1 + g / ${k}, 'write:uid-' || (g % ${k}) || '@' || g, 'kube:' || g, g, md5(g::text)
      FROM generate_series(1, ${changes}) g`);
    await db.query(`
      INSERT INTO "ReconcileRecord" ("startedAt", "finishedAt", "durationMs", namespace, name, uid, generation,
        "resourceVersion", trigger, "desiredReplicas", "activeReplicas", "readyReplicas", actions, result, "instanceId", "chainSeq", hash)
      SELECT now() - (g / ${k}) * interval '500 s', now() - (g / ${k}) * interval '500 s' + interval '5 ms', 5, 'bench',
        'nginx-' || (g % ${k}), 'uid-' || (g % ${k}), 1 + g / ${k} / 2, g::text, 'nginx-updated', 10, 10, 10,
        '[{"kind":"create","pod":"nginx-' || (g % ${k}) || '-pod-' || (g / ${k}) || '"}]', 'success', 'bench', g, md5(g::text)
      FROM generate_series(1, ${reconciles}) g`);
    const chunk = 1_000_000;
    for (let from = 1; from <= entries; from += chunk) {
      const to = Math.min(entries, from + chunk - 1);
      // Pod p of Nginx n: its transitions, then Events about it.
      await db.query(`
        INSERT INTO "TimelineEntry" (at, namespace, nginx, "nginxUid", kind, what, pod, "podUid", node, reason,
          message, actor, type, count, "dedupeKey", "chainSeq", hash)
        SELECT now() - (g / ${k}) * interval '10 s' - interval '1 s', 'bench', 'nginx-' || (g % ${k}), 'uid-' || (g % ${k}),
          CASE WHEN (g / ${k}) % 8 < 6 THEN 'pod' ELSE 'event' END,
          CASE (g / ${k}) % 8 WHEN 0 THEN 'deleted' WHEN 1 THEN 'terminating' WHEN 2 THEN 'ready' WHEN 3 THEN 'running'
            WHEN 4 THEN 'scheduled' WHEN 5 THEN 'created' WHEN 6 THEN 'Started' ELSE 'Pulled' END,
          'nginx-' || (g % ${k}) || '-pod-' || ((g / ${k}) / 8), 'pod-uid-' || g, 'kwok-node-0',
          NULL, CASE WHEN (g / ${k}) % 8 >= 6 THEN 'Container image "nginx:1.28" already present on machine' END,
          CASE WHEN (g / ${k}) % 8 >= 6 THEN 'kubelet' END, CASE WHEN (g / ${k}) % 8 >= 6 THEN 'Normal' END,
          CASE WHEN (g / ${k}) % 8 >= 6 THEN 1 END, 'bench:' || g, g, md5(g::text)
        FROM generate_series(${from}, ${to}) g`);
      console.log(
        `generated ${to} of ${entries} timeline entries (${fmt((performance.now() - started) / 1000)} s)`,
      );
    }
    for (const index of indexes) await db.query(index.indexdef);
    await db.query('ANALYZE');
    await db.query(`
      INSERT INTO "AuditChainHead" (stream, seq, hash) VALUES
        ('changes', ${changes}, md5('${changes}')), ('reconciles', ${reconciles}, md5('${reconciles}')),
        ('timeline', ${entries}, md5('${entries}'))`);
    return { changes, reconciles, entries, generateSeconds: (performance.now() - started) / 1000 };
  } finally {
    await db.end();
  }
}

async function reads(): Promise<ReadFigures> {
  const database = await postgresDatabase();
  try {
    await migrate(database.url);
    const stored = await generate(database);
    console.log(`${STORED} records stored in ${fmt(stored.generateSeconds)} s`);
    const audit = await AuditDatabase.connect(databaseTarget(database.url));
    const bare = new pg.Client({ connectionString: database.url });
    await bare.connect();
    try {
      const reader = new TimelineReader(() => audit.client());
      const prisma = () => audit.client();
      const nginx = () => `nginx-${Math.floor(Math.random() * STORED_NGINXES)}`;
      const timed = async (work: () => Promise<unknown>) => {
        const started = performance.now();
        await work();
        return performance.now() - started;
      };
      // Warm the connections and the client (not measured).
      await reader.page({ namespace: 'bench', name: 'nginx-0' }, 100);
      const page: number[] = [];
      const bareQuery: number[] = [];
      const why: number[] = [];
      let answered = 0;
      for (let sample = 0; sample < READ_SAMPLES; sample++) {
        const name = nginx();
        page.push(await timed(() => reader.page({ namespace: 'bench', name }, 100)));
        bareQuery.push(
          await timed(() =>
            bare.query(
              'SELECT * FROM "TimelineEntry" WHERE namespace = $1 AND nginx = $2 ORDER BY at DESC, id DESC LIMIT 101',
              ['bench', name],
            ),
          ),
        );
        const pod = `${name}-pod-${Math.floor(Math.random() * 20)}`;
        why.push(
          await timed(async () => {
            if (await podWhy(reader, prisma, { namespace: 'bench', name, pod })) answered++;
          }),
        );
      }
      const stats = (values: number[]) => ({ p50: quantile(values, 0.5), p95: quantile(values, 0.95) });
      return { stored, page: stats(page), bareQuery: stats(bareQuery), why: { ...stats(why), answered } };
    } finally {
      await bare.end();
      await audit.close();
    }
  } finally {
    await database.drop();
  }
}

async function main(): Promise<void> {
  await postgresAdmin('SELECT 1');
  const stamp = runStamp('v1.36.3');
  const ingestRuns: IngestRun[] = [];
  if (INGEST) {
    for (const audit of [true, false]) {
      const run = await ingest(audit);
      console.log(
        `ingest, audit ${audit ? 'on' : 'off'}: create ${fmt(run.createSeconds)} s, rollout ${fmt(run.rolloutSeconds)} s, ` +
          `CPU ${fmt(run.cpuSeconds)} s, peak RSS ${fmt(run.peakRssMb, 0)} MiB, stored ${JSON.stringify(run.stored)}`,
      );
      ingestRuns.push(run);
    }
  }
  const readFigures = READS ? await reads() : undefined;

  const [on, off] = ingestRuns;
  const lines = [
    '# The timeline at scale, on PostgreSQL',
    '',
    `Run ${stamp.date} on this repository at ${stamp.commit}: Node.js ${stamp.node}, PostgreSQL (Debian's), the local ` +
      `control plane with kwok nodes, 2 cores.`,
    '',
  ];
  if (on && off)
    lines.push(
      `## Ingest: ${NGINXES} Nginxes × ${REPLICAS} pods created, then rolled out to a new image`,
      '',
      "Our controller on the audit webhook's port (kube-apiserver's audit events of the run come in), unthrottled, " +
        'the audit trail with its timeline on, next to the same with `AUDIT=false`.',
      '',
      '| audit | create s | rollout s | CPU s | peak RSS MiB | changes | reconciles | timeline entries | records/s | queue after | dropped |',
      '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
      ...[on, off].map(
        (run) =>
          `| ${run.audit ? 'on' : 'off'} | ${fmt(run.createSeconds)} | ${fmt(run.rolloutSeconds)} | ${fmt(run.cpuSeconds)} | ` +
          `${fmt(run.peakRssMb, 0)} | ${run.stored.changes} | ${run.stored.reconciles} | ${run.stored.entries} | ` +
          `${fmt(run.perSecond, 0)} | ${run.queueDepthAfter} | ${run.dropped} |`,
      ),
      '',
      `With the audit on: ${fmt(((on.cpuSeconds - off.cpuSeconds) / off.cpuSeconds) * 100)} % more CPU, ` +
        `${fmt(((on.createSeconds + on.rolloutSeconds) / (off.createSeconds + off.rolloutSeconds) - 1) * 100)} % ` +
        `longer to converge, ${fmt(on.peakRssMb - off.peakRssMb, 0)} MiB more at peak.`,
      '',
    );
  if (readFigures)
    lines.push(
      `## Reads with ${STORED.toLocaleString('en')} records stored`,
      '',
      `${readFigures.stored.entries.toLocaleString('en')} timeline entries, ${readFigures.stored.reconciles.toLocaleString('en')} ` +
        `reconcile records and ${readFigures.stored.changes.toLocaleString('en')} change records of ${STORED_NGINXES.toLocaleString('en')} ` +
        `Nginxes (generated in ${fmt(readFigures.stored.generateSeconds)} s, indexes built after). ${READ_SAMPLES} reads each, ` +
        'of random Nginxes.',
      '',
      '| read | p50 ms | p95 ms |',
      '| --- | ---: | ---: |',
      `| first timeline page (100 entries, causes linked) | ${wholeMs(readFigures.page.p50)} | ${wholeMs(readFigures.page.p95)} |`,
      `| a pod's why (${readFigures.why.answered} of ${READ_SAMPLES} answered) | ${wholeMs(readFigures.why.p50)} | ${wholeMs(readFigures.why.p95)} |`,
      `| reference: the bare indexed query of the page's evidence | ${wholeMs(readFigures.bareQuery.p50)} | ${wholeMs(readFigures.bareQuery.p95)} |`,
      '',
    );
  writeResults(QUICK ? 'timeline-quick' : 'timeline', lines.join('\n'), {
    stamp,
    nginxes: NGINXES,
    replicas: REPLICAS,
    ingest: ingestRuns,
    reads: readFigures,
  });
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
