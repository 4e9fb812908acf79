import { describe, expect, it } from 'vitest';
import { AccessDecisions, refusalOf } from './access-decisions.js';
import type { AccessAnswer, AccessSubject, NginxAccess } from './subject-access-reviews.js';

const alice: AccessSubject = { user: 'alice', groups: ['team-a', 'system:authenticated'] };
const patchTeamB: NginxAccess = { verb: 'patch', namespace: 'team-b', name: 'web' };

/** A fake kube-apiserver: answers from `rules`, counts the reviews it was sent, or fails when `down`. */
function fakeCluster(rules: (subject: AccessSubject, access: NginxAccess) => AccessAnswer) {
  const cluster = {
    asked: 0,
    down: false,
    review: async (subject: AccessSubject, access: NginxAccess) => {
      cluster.asked++;
      if (cluster.down) throw new Error('connect ECONNREFUSED 127.0.0.1:6443');
      return rules(subject, access);
    },
  };
  return cluster;
}

const teamAOnly = (_: AccessSubject, access: NginxAccess): AccessAnswer =>
  access.namespace === 'team-a'
    ? { allowed: true, reason: 'RBAC: allowed by RoleBinding "alice/team-a"' }
    : { allowed: false, reason: '' };

function decisions(rules = teamAOnly, ttlMs = 10_000) {
  const cluster = fakeCluster(rules);
  let now = 1_000;
  const clock = { advance: (ms: number) => (now += ms) };
  return { cluster, clock, decisions: new AccessDecisions(cluster.review, { ttlMs, now: () => now }) };
}

describe('AccessDecisions', () => {
  it('asks kube-apiserver once, then answers from what it kept until the answer is ttlMs old', async () => {
    const { cluster, clock, decisions: d } = decisions();
    const access = { verb: 'patch', namespace: 'team-a', name: 'web' };
    expect(await d.refusal(alice, access)).toBeUndefined();
    expect(cluster.asked).toBe(1);
    clock.advance(9_999);
    expect(await d.refusal(alice, access)).toBeUndefined();
    expect(d.known(alice, access)).toEqual({ allowed: true, reason: expect.stringContaining('RoleBinding') });
    expect(cluster.asked).toBe(1);
    clock.advance(1);
    expect(d.known(alice, access)).toBeUndefined();
    expect(await d.refusal(alice, access)).toBeUndefined();
    expect(cluster.asked).toBe(2);
  });

  it('keeps a denial as long, so a RoleBinding removed or added takes effect within ttlMs', async () => {
    let bound = true;
    const { cluster, clock, decisions: d } = decisions(() => ({ allowed: bound, reason: '' }));
    const access = { verb: 'patch', namespace: 'team-a' };
    expect(await d.refusal(alice, access)).toBeUndefined();
    bound = false;
    expect(await d.refusal(alice, access)).toBeUndefined(); // kept
    clock.advance(10_000);
    expect((await d.refusal(alice, access))?.code).toBe(403);
    bound = true;
    expect((await d.refusal(alice, access))?.code).toBe(403); // the denial is kept too
    clock.advance(10_000);
    expect(await d.refusal(alice, access)).toBeUndefined();
    expect(cluster.asked).toBe(3);
  });

  it('asks again for another user, other groups, verb, namespace, name or subresource; not for groups reordered', async () => {
    const { cluster, decisions: d } = decisions(() => ({ allowed: true, reason: '' }));
    const access: NginxAccess = { verb: 'get', namespace: 'team-a', name: 'web' };
    await d.answer(alice, access);
    await d.answer({ user: 'alice', groups: ['system:authenticated', 'team-a'] }, access);
    expect(cluster.asked).toBe(1);
    await d.answer({ user: 'bob', groups: alice.groups }, access);
    await d.answer({ user: 'alice', groups: ['team-b'] }, access);
    await d.answer(alice, { ...access, verb: 'patch' });
    await d.answer(alice, { ...access, namespace: 'team-b' });
    await d.answer(alice, { ...access, name: 'other' });
    await d.answer(alice, { ...access, subresource: 'scale' });
    await d.answer(alice, { verb: 'get' });
    expect(cluster.asked).toBe(8);
  });

  it('sends one review for a question many requests ask at once', async () => {
    const { cluster, decisions: d } = decisions();
    const answers = await Promise.all([1, 2, 3].map(() => d.answer(alice, patchTeamB)));
    expect(answers.map((a) => a.allowed)).toEqual([false, false, false]);
    expect(cluster.asked).toBe(1);
  });

  it('answers 403 naming the verb, resource, namespace and kube-apiserver’s reason when it denies', async () => {
    const { decisions: d } = decisions(() => ({ allowed: false, reason: 'no RBAC policy matched' }));
    expect(await d.refusal(alice, patchTeamB)).toEqual({
      code: 403,
      message:
        'nginxes.mycompany.com "web" is forbidden: User "alice" cannot patch resource "nginxes" in API group ' +
        '"mycompany.com" in the namespace "team-b": no RBAC policy matched',
    });
    expect((await d.refusal(alice, { verb: 'list' }))?.message).toMatch(
      /^nginxes\.mycompany\.com is forbidden: User "alice" cannot list resource "nginxes" in API group "mycompany\.com" at the cluster scope/,
    );
    expect(
      refusalOf(
        alice,
        { verb: 'update', namespace: 'a', name: 'web', subresource: 'scale' },
        {
          allowed: false,
          reason: '',
        },
      )?.message,
    ).toMatch(/cannot update resource "nginxes\/scale" in API group "mycompany\.com" in the namespace "a"/);
  });

  it('answers 503 when kube-apiserver cannot be asked, never allows, and keeps nothing of it', async () => {
    const { cluster, decisions: d } = decisions(() => ({ allowed: true, reason: '' }));
    cluster.down = true;
    const refusal = await d.refusal(alice, patchTeamB);
    expect(refusal).toEqual({
      code: 503,
      message: expect.stringMatching(/cannot ask the Kubernetes API server .*ECONNREFUSED/),
    });
    expect(d.known(alice, patchTeamB)).toBeUndefined();
    cluster.down = false;
    expect(await d.refusal(alice, patchTeamB)).toBeUndefined();
    expect(cluster.asked).toBe(2);
  });

  it('keeps nothing with ttlMs 0, and at most maxEntries answers (the oldest go first)', async () => {
    const zero = decisions(teamAOnly, 0);
    await zero.decisions.answer(alice, patchTeamB);
    await zero.decisions.answer(alice, patchTeamB);
    expect(zero.cluster.asked).toBe(2);

    const cluster = fakeCluster(() => ({ allowed: true, reason: '' }));
    const bounded = new AccessDecisions(cluster.review, { ttlMs: 10_000, maxEntries: 2 });
    for (const name of ['a', 'b', 'c']) await bounded.answer(alice, { verb: 'get', namespace: 'n', name });
    expect(bounded.known(alice, { verb: 'get', namespace: 'n', name: 'a' })).toBeUndefined();
    expect(bounded.known(alice, { verb: 'get', namespace: 'n', name: 'c' })?.allowed).toBe(true);
  });
});
