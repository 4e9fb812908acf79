// A separate, otherwise idle process for bench/ui.bench.ts's rollout figures, so its clocks are not delayed by the
// browser driving. Prints one JSON line per first sighting, by the bench's own watches on kube-apiserver
// ({"source":"watch"}) and by a socket.io client subscribed to the Nginx ({"source":"socket"}):
//   {"event":"pod","revision":h}      the first pod of revision h (its mycompany.com/revision label) appeared;
//   {"event":"complete","revision":h} the Nginx's status first said every pod is of revision h and available
//                                    (observedGeneration current, updated = available = replicas = spec.replicas).
import type { V1Pod } from '@kubernetes/client-node';
import { io } from 'socket.io-client';
import { SharedInformer, type KubeObject } from '../../libs/kube-runtime/src/index.js';
import {
  LABEL_NGINX,
  LABEL_REVISION,
  type LiveChange,
  type Nginx,
  type SubscribeAck,
} from '../../libs/nginx-api/src/index.js';
import { runtimeClient } from '../../test/support/runtime.js';

const [url, token, namespace, name] = process.argv.slice(2) as [string, string, string, string];
const client = runtimeClient();
const seen = new Set<string>();
/** Says `event` of `revision` once per source. */
const say = (source: 'watch' | 'socket', event: 'pod' | 'complete', revision: string) => {
  const key = `${source}/${event}/${revision}`;
  if (seen.has(key)) return;
  seen.add(key);
  process.stdout.write(`${JSON.stringify({ source, event, revision, at: Date.now() })}\n`);
};

/** The rollout to status.updateRevision is done: every desired pod is of it and available, none other left. */
function completeRevision(nginx: Nginx): string | undefined {
  const { spec, status, metadata } = nginx;
  const done =
    status?.observedGeneration === metadata.generation &&
    status?.updatedReplicas === spec.replicas &&
    status?.availableReplicas === spec.replicas &&
    (status?.replicas ?? 0) === spec.replicas;
  return done ? status?.updateRevision : undefined;
}

const pods = new SharedInformer<V1Pod & KubeObject>({
  client,
  resource: { group: '', version: 'v1', plural: 'pods', namespace },
  kind: 'Pod',
});
const podAdded = (pod: V1Pod) => {
  const revision = pod.metadata?.labels?.[LABEL_REVISION];
  if (pod.metadata?.labels?.[LABEL_NGINX] === name && revision) say('watch', 'pod', revision);
};
pods.addEventHandler({ add: podAdded });

const nginxes = new SharedInformer<Nginx & KubeObject>({
  client,
  resource: { group: 'mycompany.com', version: 'v1', plural: 'nginxes', namespace },
  kind: 'Nginx',
});
const nginxChanged = (nginx: Nginx) => {
  const revision = nginx.metadata.name === name ? completeRevision(nginx) : undefined;
  if (revision) say('watch', 'complete', revision);
};
nginxes.addEventHandler({ add: nginxChanged, update: (_, nginx) => nginxChanged(nginx) });

const stop = new AbortController();
void pods.run(stop.signal);
void nginxes.run(stop.signal);
await Promise.all([pods.waitForCacheSync(), nginxes.waitForCacheSync()]);

const socket = io(url, { path: '/socket.io', auth: { token }, transports: ['websocket'] });
socket.on('changes', (changes: LiveChange[]) => {
  for (const change of changes) {
    if (change.kind === 'pod' && change.object.revision) say('socket', 'pod', change.object.revision);
    if (change.kind === 'nginx') {
      const revision = completeRevision(change.object);
      if (revision) say('socket', 'complete', revision);
    }
  }
});
await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
const ack: SubscribeAck = await socket
  .timeout(10_000)
  .emitWithAck('subscribe', { scope: 'nginx', namespace, name });
if (!ack.ok) throw new Error(ack.message);
process.stdout.write(`${JSON.stringify({ source: 'ready' })}\n`);
