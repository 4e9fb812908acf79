import type { V1Pod } from '@kubernetes/client-node';
import type { KubeClient } from '../../../libs/kube-runtime/src/index.js';
import type { Nginx } from '../../../libs/nginx-api/src/index.js';
import { active, nginxesIn } from '../../support/operations.js';
import { waitFor } from '../../support/wait.js';

/** `count` Nginx objects named `<prefix>-0…`, all in one namespace, driven together. */
export function fleet(client: KubeClient, namespace: string, prefix: string, count: number) {
  const collection = `/apis/mycompany.com/v1/namespaces/${namespace}/nginxes`;
  const names = Array.from({ length: count }, (_, i) => `${prefix}-${i}`);
  const all = <T>(work: (name: string) => Promise<T>) => Promise.all(names.map(work));
  const one = nginxesIn(client, namespace);

  const pods = async () =>
    (await client.request<{ items: V1Pod[] }>({ path: `/api/v1/namespaces/${namespace}/pods` })).items;
  const nginxes = async () => (await client.request<{ items: Nginx[] }>({ path: collection })).items;

  /**
   * This fleet's active pods per Nginx name (by controller owner reference), its pods no Nginx of the namespace
   * owns (orphans), and its own Nginx objects. Pods of other fleets in the namespace are not counted.
   */
  const census = async () => {
    const [list, all] = await Promise.all([pods(), nginxes()]);
    const owners = all.filter((n) => names.includes(n.metadata.name!));
    const byUid = new Map(all.map((n) => [n.metadata.uid!, n.metadata.name!]));
    const perNginx = new Map<string, number>(names.map((n) => [n, 0]));
    const orphans: string[] = [];
    const mine: V1Pod[] = [];
    for (const pod of active(list)) {
      const owner = pod.metadata?.ownerReferences?.find((ref) => ref.controller);
      const name = owner && byUid.get(owner.uid);
      if (!name) orphans.push(pod.metadata!.name!);
      else if (perNginx.has(name)) {
        perNginx.set(name, perNginx.get(name)! + 1);
        mine.push(pod);
      }
    }
    const running = mine.filter((p) => p.status?.phase === 'Running').length;
    return { perNginx, orphans, active: mine.length, running, owners };
  };

  return {
    names,
    create: (replicas: number) => all((name) => one.create(name, replicas)),
    scale: (replicas: number) => all((name) => one.scale(name, replicas)),
    census,
    /**
     * Waits until every Nginx has exactly `replicas` Running pods it owns, no pod is unowned, and every status
     * says so for the current generation; resolves with how long that took.
     */
    converged: async (replicas: number, timeoutMs = 120_000) => {
      const started = Date.now();
      await waitFor(
        `${count} Nginxes in ${namespace} at exactly ${replicas} running pods each`,
        async () => {
          const { perNginx, orphans, running, owners } = await census();
          return (
            orphans.length === 0 &&
            running === count * replicas &&
            [...perNginx.values()].every((n) => n === replicas) &&
            owners.every(
              (n) =>
                n.status?.readyReplicas === replicas &&
                n.status?.replicas === replicas &&
                n.status?.observedGeneration === n.metadata.generation,
            )
          );
        },
        { timeoutMs, intervalMs: 250 },
      );
      return Date.now() - started;
    },
  };
}
