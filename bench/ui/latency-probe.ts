// A separate, otherwise idle process for bench/ui.bench.ts, so its clocks are not delayed by the browser driving:
// prints one JSON line when its own watch on the API server sees a pod of the namespace turn Running
// ({"source":"watch"}), and when a socket.io client subscribed to the Nginx gets that change ({"source":"socket"}).
import type { V1Pod } from '@kubernetes/client-node';
import { io } from 'socket.io-client';
import { SharedInformer, type KubeObject } from '../../libs/kube-runtime/src/index.js';
import type { LiveChange, SubscribeAck } from '../../libs/nginx-api/src/index.js';
import { runtimeClient } from '../../test/support/runtime.js';

const [url, token, namespace, name] = process.argv.slice(2) as [string, string, string, string];
const client = runtimeClient();
const seen = new Set<string>();
const say = (source: string, pod: string) =>
  process.stdout.write(`${JSON.stringify({ source, pod, at: Date.now() })}\n`);

const pods = new SharedInformer<V1Pod & KubeObject>({
  client,
  resource: { group: '', version: 'v1', plural: 'pods', namespace },
  kind: 'Pod',
});
const mark = (pod: V1Pod) => {
  const key = pod.metadata!.uid!;
  if (pod.status?.phase === 'Running' && !seen.has(key)) {
    seen.add(key);
    say('watch', pod.metadata!.name!);
  }
};
pods.addEventHandler({ add: mark, update: (_, pod) => mark(pod) });
void pods.run(new AbortController().signal);
await pods.waitForCacheSync();

const socketSeen = new Set<string>();
const socket = io(url, { path: '/socket.io', auth: { token }, transports: ['websocket'] });
socket.on('changes', (changes: LiveChange[]) => {
  for (const change of changes)
    if (change.kind === 'pod' && change.object.phase === 'Running' && !socketSeen.has(change.object.uid)) {
      socketSeen.add(change.object.uid);
      say('socket', change.object.name);
    }
});
await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
const ack: SubscribeAck = await socket
  .timeout(10_000)
  .emitWithAck('subscribe', { scope: 'nginx', namespace, name });
if (!ack.ok) throw new Error(ack.message);
process.stdout.write(`${JSON.stringify({ source: 'ready' })}\n`);
