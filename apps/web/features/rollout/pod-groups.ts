import type { LivePod } from '@ngx/nginx-api';

/** The pods of one revision (null: pods made before revisions existed, without the label). */
export interface PodGroup {
  revision: string | null;
  /** Is this the update revision (status.updateRevision), the one a rollout moves every pod to? */
  current: boolean;
  /** In the order they were given. */
  pods: LivePod[];
  total: number;
  /** Ready and not terminating. */
  ready: number;
  terminating: number;
}

const newest = (group: PodGroup) =>
  group.pods.reduce((max, p) => ((p.createdAt ?? '') > max ? (p.createdAt ?? '') : max), '');

/**
 * `pods` grouped by revision, one group per revision that has pods (an empty list gives no group): the update
 * revision first, then the other revisions, the one with the most recently created pod first, and the label-less
 * legacy pods last. Every pod is in exactly one group, and within a group pods keep their given order.
 */
export function groupPodsByRevision(
  pods: readonly LivePod[],
  updateRevision: string | undefined,
): PodGroup[] {
  const groups = new Map<string | null, PodGroup>();
  for (const pod of pods) {
    let group = groups.get(pod.revision);
    if (!group) {
      group = {
        revision: pod.revision,
        current: pod.revision !== null && pod.revision === updateRevision,
        pods: [],
        total: 0,
        ready: 0,
        terminating: 0,
      };
      groups.set(pod.revision, group);
    }
    group.pods.push(pod);
    group.total++;
    if (pod.terminating) group.terminating++;
    else if (pod.ready) group.ready++;
  }
  const rank = (g: PodGroup) => (g.current ? 0 : g.revision === null ? 2 : 1);
  return [...groups.values()].sort(
    (a, b) =>
      rank(a) - rank(b) ||
      newest(b).localeCompare(newest(a)) ||
      (a.revision ?? '').localeCompare(b.revision ?? ''),
  );
}

/** "3 pods · 2 ready · 1 terminating" (the terminating part only when there are some). */
export function groupSummary(group: PodGroup): string {
  const parts = [`${group.total} pod${group.total === 1 ? '' : 's'}`, `${group.ready} ready`];
  if (group.terminating) parts.push(`${group.terminating} terminating`);
  return parts.join(' · ');
}
