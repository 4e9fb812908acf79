import { describe, expect, it } from 'vitest';
import type { NotificationEvent } from './notification-event.js';
import { parseRouting, receiversFor } from './routing.js';

const GOOD = `uiBaseUrl: https://nginx.example.com
receivers:
  - name: ops-hook
    type: webhook
    url: https://hooks.example.com/ngx
    secretEnv: OPS_HOOK_SECRET
  - name: team-slack
    type: slack
    url: https://hooks.slack.com/services/T/B/X
routes:
  - events: [rollout-failed, rolled-back]
    receivers: [ops-hook, team-slack]
  - events: [rollout-completed]
    namespaces: [prod]
    selector:
      matchLabels: { tier: web }
    receivers: [team-slack]
`;

const event = (over: Partial<NotificationEvent>): NotificationEvent => ({
  type: 'rollout-completed',
  key: 'k',
  namespace: 'prod',
  name: 'web',
  uid: 'u',
  at: '2026-11-28T10:00:00Z',
  summary: 's',
  labels: { tier: 'web' },
  ...over,
});

describe('parseRouting', () => {
  it('accepts a routing file, with the defaults of each receiver', () => {
    const routing = parseRouting(GOOD);
    expect(routing.receivers[0]).toMatchObject({ name: 'ops-hook', timeoutSeconds: 5, attempts: 5 });
    expect(routing.routes).toHaveLength(2);
  });

  it('accepts JSON', () => {
    const routing = parseRouting(
      JSON.stringify({
        receivers: [{ name: 'a', type: 'teams', url: 'http://127.0.0.1:9/x' }],
        routes: [{ events: ['nginx-deleted'], receivers: ['a'] }],
      }),
    );
    expect(routing.receivers[0]!.type).toBe('teams');
  });

  it('refuses an unknown event, naming the field and its line', () => {
    expect(() => parseRouting(GOOD.replace('rolled-back]', 'rolled-backwards]'), 'routes.yaml')).toThrow(
      /^routes\.yaml: line 11: routes\[0\]\.events\[1\]: /,
    );
  });

  it('refuses a malformed URL', () => {
    expect(() => parseRouting(GOOD.replace('https://hooks.example.com/ngx', 'hooks example'))).toThrow(
      /line 5: receivers\[0\]\.url: must be an http\(s\) URL/,
    );
    expect(() => parseRouting(GOOD.replace('https://hooks.example.com/ngx', 'ftp://x/y'))).toThrow(
      /receivers\[0\]\.url/,
    );
  });

  it('refuses a route to a receiver that does not exist, an unknown field, a duplicate name, bad YAML', () => {
    expect(() => parseRouting(GOOD.replace('[team-slack]', '[nobody]'))).toThrow(
      /routes\[1\]\.receivers\[0\]: no receiver is named nobody/,
    );
    expect(() => parseRouting(GOOD.replace('    secretEnv:', '    secret:'))).toThrow(/receivers\[0\]/);
    expect(() => parseRouting(GOOD.replace('name: team-slack', 'name: ops-hook'))).toThrow(
      /duplicate receiver/,
    );
    expect(() => parseRouting('receivers: [\n')).toThrow(/line \d+/);
    expect(() => parseRouting('')).toThrow(/\(top level\)/);
  });
});

describe('receiversFor', () => {
  const routing = parseRouting(GOOD);
  it('sends an event to every receiver of every route that takes it, once each', () => {
    expect(receiversFor(routing, event({ type: 'rollout-failed' })).map((r) => r.name)).toEqual([
      'ops-hook',
      'team-slack',
    ]);
  });
  it('honours namespaces and labels', () => {
    expect(receiversFor(routing, event({}))).toHaveLength(1);
    expect(receiversFor(routing, event({ namespace: 'dev' }))).toHaveLength(0);
    expect(receiversFor(routing, event({ labels: {} }))).toHaveLength(0);
    expect(receiversFor(routing, event({ type: 'canary-paused' }))).toHaveLength(0);
  });
});
