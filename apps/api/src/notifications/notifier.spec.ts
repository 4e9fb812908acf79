import { describe, expect, it } from 'vitest';
import type { NotificationEvent } from './notification-event.js';
import { MemoryNotificationRecords } from './notification-records.js';
import type { Delivery, NotificationSender } from './notification-sender.js';
import { Notifier } from './notifier.js';
import { parseRouting } from './routing.js';

const routing = parseRouting(`
receivers:
  - { name: hook, type: webhook, url: 'http://127.0.0.1:9/hook' }
  - { name: chat, type: slack, url: 'http://127.0.0.1:9/chat' }
routes:
  - { events: [rollout-started, rollout-completed], receivers: [hook, chat] }
`);

const event = (type: NotificationEvent['type'], revision: string): NotificationEvent => ({
  type,
  key: `uid-1/${type}/${revision}/2`,
  namespace: 'shop',
  name: 'web',
  uid: 'uid-1',
  at: new Date().toISOString(),
  revision,
  summary: 's',
  labels: {},
});

/** An instance of the app: its notifier, whether it leads, and what its sender was handed. */
function instance(records: MemoryNotificationRecords) {
  const sent: Delivery[] = [];
  const tookOver: { offered: number; claimed: number; resent: number }[] = [];
  const state = { leading: false };
  const notifier = new Notifier({
    records,
    sender: { send: (delivery: Delivery) => sent.push(delivery) } as unknown as NotificationSender,
    routing: () => routing,
    leading: () => state.leading,
    onProblem: (message) => {
      throw new Error(message);
    },
    onTookOver: (taken) => tookOver.push(taken),
  });
  return { notifier, sent, state, tookOver };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 10));

describe('Notifier', () => {
  it('sends each event once to each routed receiver, only from the leader', async () => {
    const records = new MemoryNotificationRecords();
    const leader = instance(records);
    const standby = instance(records);
    leader.state.leading = true;
    const started = event('rollout-started', 'b');
    leader.notifier.notify([started]);
    standby.notifier.notify([started]);
    leader.notifier.notify([started]); // seen again (a resync, a relist)
    await settle();
    expect(leader.sent.map((delivery) => delivery.id)).toEqual([
      'uid-1/rollout-started/b/2/hook',
      'uid-1/rollout-started/b/2/chat',
    ]);
    expect(standby.sent).toEqual([]);
  });

  it('across a hand-over: the new leader sends what the old one did not record, and nothing it did', async () => {
    const records = new MemoryNotificationRecords();
    const old = instance(records);
    const next = instance(records);
    old.state.leading = true;
    await old.notifier.checkLeadership();
    await next.notifier.checkLeadership();
    const started = event('rollout-started', 'b');
    const completed = event('rollout-completed', 'b');
    // Both see the rollout start; the old leader records and sends it.
    old.notifier.notify([started]);
    next.notifier.notify([started]);
    await settle();
    // The old leader stops before it decides the completion (killed); the standby saw it.
    old.state.leading = false;
    next.notifier.notify([completed]);
    next.state.leading = true;
    await next.notifier.checkLeadership();
    expect(old.sent.map((delivery) => delivery.event)).toEqual(['rollout-started', 'rollout-started']);
    // Also takes over what the old leader recorded but never settled (it was killed mid-delivery).
    expect(next.sent.map((delivery) => delivery.id).sort()).toEqual([
      'uid-1/rollout-completed/b/2/chat',
      'uid-1/rollout-completed/b/2/hook',
      'uid-1/rollout-started/b/2/chat',
      'uid-1/rollout-started/b/2/hook',
    ]);
    expect(next.tookOver).toEqual([{ offered: 2, claimed: 2, resent: 2 }]);
  });

  it('a settled delivery is not taken over again', async () => {
    const records = new MemoryNotificationRecords();
    const old = instance(records);
    const next = instance(records);
    old.state.leading = true;
    await old.notifier.checkLeadership();
    old.notifier.notify([event('rollout-started', 'b')]);
    await settle();
    for (const delivery of old.sent) await old.notifier.settled(delivery, 'sent', 1);
    old.state.leading = false;
    next.state.leading = true;
    await next.notifier.checkLeadership();
    expect(next.sent).toEqual([]);
  });
});
