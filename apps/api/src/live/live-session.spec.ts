import type { V1Pod } from '@kubernetes/client-node';
import { Store, type KubeObject } from '@ngx/kube-runtime';
import type { LiveChange, Nginx } from '@ngx/nginx-api';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ClusterInformers } from '../kube/cluster-informers.js';
import { owningNginxKey, PODS_BY_NGINX } from '../kube/pod-index.js';
import { LiveSession, PodChange } from './live-session.js';

const nginx = (namespace: string, name: string): Nginx & KubeObject => ({
  apiVersion: 'mycompany.com/v1',
  kind: 'Nginx',
  metadata: { namespace, name, uid: `${namespace}-${name}`, resourceVersion: '1' },
  spec: { replicas: 1 },
});
const pod = (namespace: string, owner: string, name: string, phase = 'Pending'): V1Pod & KubeObject => ({
  metadata: {
    namespace,
    name,
    uid: `${namespace}-${name}`,
    resourceVersion: '7',
    labels: { 'mycompany.com/nginx': owner },
    ownerReferences: [
      {
        apiVersion: 'mycompany.com/v1',
        kind: 'Nginx',
        name: owner,
        uid: `${namespace}-${owner}`,
        controller: true,
      },
    ],
  },
  status: { phase },
});

/** The two caches LiveSession reads, filled by hand. */
function informers(): ClusterInformers {
  const nginxes = new Store<Nginx & KubeObject>();
  const pods = new Store<V1Pod & KubeObject>({
    indexers: { [PODS_BY_NGINX]: (p) => [owningNginxKey(p)].filter((k): k is string => Boolean(k)) },
  });
  for (const n of [nginx('a', 'web'), nginx('a', 'api'), nginx('b', 'web')])
    nginxes.upsert(nginxes.accept(n));
  for (const p of [pod('a', 'web', 'web-1'), pod('a', 'web', 'web-2'), pod('a', 'api', 'api-1')])
    pods.upsert(pods.accept(p));
  return {
    nginxes: { cache: nginxes, lastSyncResourceVersion: '100' },
    pods: { cache: pods, lastSyncResourceVersion: '200' },
  } as unknown as ClusterInformers;
}

describe('LiveSession', () => {
  let sent: LiveChange[];
  let session: LiveSession;
  beforeEach(() => {
    vi.useFakeTimers();
    sent = [];
    session = new LiveSession(
      informers(),
      (changes) => sent.push(...changes),
      () => true,
      100,
    );
  });
  afterEach(() => {
    session.close();
    vi.useRealTimers();
  });

  it("answers a namespace subscription with that namespace's Nginxes, or all of them", () => {
    expect(
      session
        .subscribe({ scope: 'namespace', namespace: 'a' })
        .nginxes.map((n) => n.metadata.name)
        .sort(),
    ).toEqual(['api', 'web']);
    const all = session.subscribe({ scope: 'namespace' });
    expect(all.nginxes).toHaveLength(3);
    expect(all.resourceVersion).toBe('100');
  });

  it('answers an Nginx subscription with the Nginx and its pods only', () => {
    const snapshot = session.subscribe({ scope: 'nginx', namespace: 'a', name: 'web' });
    expect(snapshot.nginxes.map((n) => n.metadata.uid)).toEqual(['a-web']);
    expect(snapshot.pods!.map((p) => p.name)).toEqual(['web-1', 'web-2']);
    expect(snapshot.resourceVersion).toBe('200');
  });

  it('routes changes to the subscriptions they concern', () => {
    const ns = session.subscribe({ scope: 'namespace', namespace: 'a' }).subscription;
    const one = session.subscribe({ scope: 'nginx', namespace: 'a', name: 'web' }).subscription;
    session.nginxChanged('MODIFIED', nginx('b', 'web'));
    vi.advanceTimersByTime(0);
    expect(sent).toEqual([]);
    session.nginxChanged('MODIFIED', nginx('a', 'web'));
    vi.advanceTimersByTime(0);
    expect(sent.map((c) => c.subscription).sort()).toEqual([ns, one].sort());
    session.podChanged('ADDED', new PodChange(pod('a', 'api', 'api-2')));
    vi.advanceTimersByTime(0);
    expect(sent).toHaveLength(2);
    session.podChanged('MODIFIED', new PodChange(pod('a', 'web', 'web-1', 'Running')));
    vi.advanceTimersByTime(0);
    expect(sent.at(-1)).toMatchObject({
      subscription: one,
      kind: 'pod',
      type: 'MODIFIED',
      object: { name: 'web-1', phase: 'Running' },
    });
  });

  it('stops sending for a subscription once unsubscribed, including what was pending', () => {
    const one = session.subscribe({ scope: 'nginx', namespace: 'a', name: 'web' }).subscription;
    session.podChanged('MODIFIED', new PodChange(pod('a', 'web', 'web-1', 'Running')));
    vi.advanceTimersByTime(0);
    session.podChanged('MODIFIED', new PodChange(pod('a', 'web', 'web-1', 'Failed'))); // held back by the 100 ms interval
    expect(session.unsubscribe(one)).toBe(true);
    vi.advanceTimersByTime(500);
    expect(sent).toHaveLength(1);
    expect(session.unsubscribe(one)).toBe(false);
  });

  it("keeps sending a pod's changes to another subscription of the same Nginx after one is dropped", () => {
    const first = session.subscribe({ scope: 'nginx', namespace: 'a', name: 'web' }).subscription;
    const second = session.subscribe({ scope: 'nginx', namespace: 'a', name: 'web' }).subscription;
    session.podChanged('MODIFIED', new PodChange(pod('a', 'web', 'web-1', 'Running')));
    vi.advanceTimersByTime(0);
    expect(sent.map((c) => c.subscription)).toEqual([first, second]);
    session.unsubscribe(first);
    session.podChanged('MODIFIED', new PodChange(pod('a', 'web', 'web-2', 'Running')));
    vi.advanceTimersByTime(0);
    expect(sent.slice(2).map((c) => c.subscription)).toEqual([second]);
    session.unsubscribe(second);
    session.podChanged('MODIFIED', new PodChange(pod('a', 'web', 'web-3', 'Running')));
    vi.advanceTimersByTime(500);
    expect(sent).toHaveLength(3);
  });

  it('views a pod once however many sessions want its change, and not at all when none does', () => {
    const other = new LiveSession(
      informers(),
      (changes) => sent.push(...changes),
      () => true,
    );
    session.subscribe({ scope: 'nginx', namespace: 'a', name: 'web' });
    other.subscribe({ scope: 'nginx', namespace: 'a', name: 'web' });
    const unwanted = new PodChange(pod('a', 'api', 'api-1', 'Running'));
    const view = vi.spyOn(unwanted, 'podView', 'get');
    session.podChanged('MODIFIED', unwanted);
    expect(view).not.toHaveBeenCalled();

    const change = new PodChange(pod('a', 'web', 'web-1', 'Running'));
    session.podChanged('MODIFIED', change);
    other.podChanged('MODIFIED', change);
    vi.advanceTimersByTime(0);
    expect(sent).toHaveLength(2);
    expect(sent[0]!.object).toBe(sent[1]!.object);
    other.close();
  });
});
