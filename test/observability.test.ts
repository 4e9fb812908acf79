// The shipped dashboard and alerts against Debian's real Prometheus: two controller instances (leader election)
// scraped every second with the alerting rules of deploy/prometheus loaded (each `for:` cut to 0s, so that a rule
// fires at its first true evaluation instead of minutes later), under a workload of this file's namespace: a steady
// Nginx, a canary whose analysis fails, a ResourceQuota that refuses a scale-up past its progress deadline, then
// the leader killed with kill -9. Every dashboard query and every rule expression must evaluate without error and
// return data; the alerts for those faults must fire.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NginxSpec } from '../libs/nginx-api/src/index.js';
import { startApp, type AppProcess } from './support/app-process.js';
import { migrate, sqliteDatabase } from './support/database.js';
import { createNamespace, createPodQuota, nginxesIn } from './support/operations.js';
import { ROOT } from './support/paths.js';
import { TestPrometheus } from './support/prometheus.js';
import { runtimeClient } from './support/runtime.js';
import { waitFor } from './support/wait.js';

const RULES = join(ROOT, 'deploy/prometheus/nginx-control-plane.rules.yml');
const PROMETHEUS_RULE = join(ROOT, 'deploy/prometheus/rules.yaml');
const DASHBOARD = join(ROOT, 'deploy/grafana/nginx-control-plane.json');

interface RuleGroup {
  name: string;
  rules: { alert: string; expr: string; for?: string }[];
}
interface Alert {
  labels: Record<string, string>;
  state: 'pending' | 'firing';
}

const client = runtimeClient();
const cleanups: (() => Promise<unknown>)[] = [];
const controllers: AppProcess[] = [];
let prometheus: TestPrometheus;
let ns: string;

const firing = async () =>
  (await prometheus.api<{ alerts: Alert[] }>('alerts')).alerts.filter((a) => a.state === 'firing');
const firingNamed = (alert: string, labels: Record<string, string> = {}) =>
  waitFor(
    `alert ${alert} firing`,
    async () =>
      (await firing()).find(
        (a) => a.labels.alertname === alert && Object.entries(labels).every(([k, v]) => a.labels[k] === v),
      ),
    { timeoutMs: 120_000, intervalMs: 250 },
  );

beforeAll(async () => {
  ns = await createNamespace(client, 'observability', cleanups);
  const db = await sqliteDatabase();
  await migrate(db.url);
  const env = {
    WEB_MODE: 'off',
    DATABASE_URL: db.url,
    WATCH_NAMESPACE: ns,
    LEASE_NAMESPACE: ns,
    LEASE_DURATION_SECONDS: '8',
    LEASE_RENEW_DEADLINE_SECONDS: '5',
    LEASE_RETRY_PERIOD_SECONDS: '1',
  };
  controllers.push(await startApp(env), await startApp(env));
  cleanups.push(async () => Promise.all(controllers.map((app) => app.stop())));
  const scratch = mkdtempSync(join(tmpdir(), 'ngx-rules-'));
  const rules = join(scratch, 'rules.yml');
  writeFileSync(rules, readFileSync(RULES, 'utf8').replace(/^(\s+)for: \S+$/gm, '$1for: 0s'));
  prometheus = new TestPrometheus(
    { 'nginx-control-plane': controllers.map((app) => Number(new URL(app.url).port)) },
    [rules],
  );
  await prometheus.start();
  cleanups.push(() => prometheus.stop());
}, 180_000);

afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
  client.close();
});

const nginxes = () => nginxesIn(client, ns);
const createNginx = (name: string, spec: NginxSpec) =>
  client.request({
    method: 'POST',
    path: `/apis/mycompany.com/v1/namespaces/${ns}/nginxes`,
    body: { apiVersion: 'mycompany.com/v1', kind: 'Nginx', metadata: { name }, spec },
  });

describe('the dashboard and the alerts, in a real Prometheus', () => {
  it('ships the same rule groups as a plain rules file and as a PrometheusRule', () => {
    const plain = parse(readFileSync(RULES, 'utf8')) as { groups: RuleGroup[] };
    const resource = parse(readFileSync(PROMETHEUS_RULE, 'utf8')) as {
      apiVersion: string;
      kind: string;
      spec: { groups: RuleGroup[] };
    };
    expect([resource.apiVersion, resource.kind]).toEqual(['monitoring.coreos.com/v1', 'PrometheusRule']);
    expect(resource.spec.groups).toEqual(plain.groups);
  });

  it('fires the alerts of a failed analysis, a quota refusing pods past the progress deadline, and a killed leader', async () => {
    await createNginx('steady', { replicas: 2, image: 'nginx:1.27' });
    await nginxes().converged('steady', 2);
    // A canary whose analysis cannot pass: Prometheus answers 1, the condition wants less than 0.
    const canary: NginxSpec = {
      replicas: 2,
      image: 'nginx:1.27',
      strategy: {
        type: 'Canary',
        canary: { steps: [{ setWeight: 50 }, { analysis: { templateName: 'never' } }] },
      },
      analysis: [
        {
          name: 'never',
          prometheus: { address: prometheus.address, query: 'vector(1)' },
          successCondition: 'result < 0',
          interval: '1s',
          count: 1,
          failureLimit: 0,
        },
      ],
    };
    await createNginx('canary', canary);
    await nginxes().converged('canary', 2);
    await client.request({
      method: 'PATCH',
      path: `/apis/mycompany.com/v1/namespaces/${ns}/nginxes/canary`,
      contentType: 'application/merge-patch+json',
      body: { spec: { image: 'nginx:1.28' } },
    });
    await firingNamed('NginxCanaryAnalysisFailed', { namespace: ns, name: 'canary' });

    await createPodQuota(client, ns, 6);
    await client.request({
      method: 'PATCH',
      path: `/apis/mycompany.com/v1/namespaces/${ns}/nginxes/steady`,
      contentType: 'application/merge-patch+json',
      body: { spec: { replicas: 8, progressDeadlineSeconds: 5 } },
    });
    await firingNamed('NginxPodCreationsRefused');
    await firingNamed('NginxRolloutProgressDeadlineExceeded', { namespace: ns, name: 'steady' });

    const leader = await waitFor('a leader', async () => {
      for (const app of controllers) if ((await app.readiness()).checks.controller.leader) return app;
      return undefined;
    });
    await leader.kill();
    await firingNamed('NginxControllerNoLeader');
  }, 300_000);

  it('evaluates every rule without error, and every dashboard query returns data', async () => {
    const { groups } = await prometheus.api<{
      groups: { rules: { name: string; health: string; lastError?: string; query: string }[] }[];
    }>('rules');
    const rules = groups.flatMap((group) => group.rules);
    expect(rules.map((rule) => rule.name).sort()).toEqual(
      (parse(readFileSync(RULES, 'utf8')) as { groups: RuleGroup[] }).groups
        .flatMap((group) => group.rules.map((rule) => rule.alert))
        .sort(),
    );
    for (const rule of rules)
      expect([rule.name, rule.health, rule.lastError ?? '']).toEqual([rule.name, 'ok', '']);

    const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as {
      panels: { title: string; targets?: { expr: string }[] }[];
    };
    const queries = dashboard.panels.flatMap((panel) =>
      (panel.targets ?? []).map((target) => ({ panel: panel.title, expr: target.expr })),
    );
    expect(queries.length).toBeGreaterThan(10);
    const empty: string[] = [];
    for (const { panel, expr } of queries) {
      // Rates and quantiles need two scrapes of a change: allow a few seconds for each.
      const result = await waitFor(
        `${panel}: ${expr}`,
        async () => {
          const answer = await prometheus.query(expr);
          return answer.length > 0 && answer;
        },
        { timeoutMs: 20_000, intervalMs: 500 },
      ).catch(() => []);
      if (result.length === 0) empty.push(`${panel}: ${expr}`);
    }
    expect(empty).toEqual([]);
  });
});
