// One watcher of bench/fanout.bench.ts in its own plain-Node process, as a browser tab would be one (no TypeScript
// loader: a hundred of them run at once on two cores). It notes the first moment it learns that each pod of the
// namespace is Running, on the machine's clock, and keeps the notes until asked.
//   node bench/fanout/client.mjs socket <app url> <token> <namespace> <nginx,nginx,...>
//     the app's live gateway: one namespace subscription and one per Nginx, as the list and detail pages hold
//   node bench/fanout/client.mjs watch <kubeconfig> <namespace>
//     a watch of the namespace's pods on kube-apiserver itself (the reference)
// Prints {"ready":true} once it watches. On stdin, `report` prints {"seen":{uid:ms},"changes":n,"messages":n,
// "resyncs":n} (changes of pods and Nginxes, in how many socket.io messages or watch events) and forgets them;
// `exit` ends it.
import { createInterface } from 'node:readline';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient, SharedInformer } from '@ngx/kube-runtime';
import { io } from 'socket.io-client';

const [mode, ...args] = process.argv.slice(2);
let seen = {};
let changes = 0;
let messages = 0;
let resyncs = 0;
const running = (uid) => {
  seen[uid] ??= Date.now();
};
const say = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);

if (mode === 'socket') {
  const [url, token, namespace, names] = args;
  const requests = [
    { scope: 'namespace', namespace },
    ...names.split(',').map((name) => ({ scope: 'nginx', namespace, name })),
  ];
  const socket = io(url, { path: '/socket.io', auth: { token }, transports: ['websocket'] });
  const subscribe = async (request) => {
    const ack = await socket.timeout(30_000).emitWithAck('subscribe', request);
    if (!ack.ok) throw new Error(`subscribe ${JSON.stringify(request)}: ${ack.code} ${ack.message}`);
    for (const pod of ack.pods ?? []) if (pod.phase === 'Running') running(pod.uid);
    return ack.subscription;
  };
  const bySubscription = new Map();
  socket.on('changes', (batch) => {
    messages += 1;
    for (const change of batch) {
      changes += 1;
      if (change.kind === 'pod' && change.type !== 'DELETED' && change.object.phase === 'Running')
        running(change.object.uid);
    }
  });
  // The server dropped a subscription (this client fell behind): subscribe again, as the UI does.
  socket.on('resync', ({ subscription }) => {
    resyncs += 1;
    const request = bySubscription.get(subscription);
    if (request) void subscribe(request).then((id) => bySubscription.set(id, request));
  });
  socket.on('connect_error', (error) => {
    console.error(`connect_error: ${error.message}`);
    process.exit(1);
  });
  await new Promise((resolve) => socket.once('connect', resolve));
  for (const request of requests) bySubscription.set(await subscribe(request), request);
} else if (mode === 'watch') {
  const [kubeconfig, namespace] = args;
  const config = new KubeConfig();
  config.loadFromFile(kubeconfig);
  const pods = new SharedInformer({
    client: new KubeClient(config, { qps: 50, burst: 100 }),
    resource: { group: '', version: 'v1', plural: 'pods', namespace },
    kind: 'Pod',
  });
  const mark = (pod) => {
    changes += 1;
    messages += 1;
    if (pod.status?.phase === 'Running') running(pod.metadata.uid);
  };
  pods.addEventHandler({ add: mark, update: (_, pod) => mark(pod) });
  void pods.run(new AbortController().signal);
  await pods.waitForCacheSync();
} else {
  console.error(`unknown mode ${mode}`);
  process.exit(2);
}

say({ ready: true });
createInterface({ input: process.stdin }).on('line', (line) => {
  if (line === 'report') {
    say({ seen, changes, messages, resyncs });
    seen = {};
    changes = 0;
    messages = 0;
    resyncs = 0;
  } else if (line === 'exit') process.exit(0);
});
