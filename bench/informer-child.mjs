// One informer variant in its own plain-Node process (no TypeScript loader, whose own memory would swamp the
// figures), so its sync time and memory are measured alone. Prints one JSON line.
// Usage: node --expose-gc bench/informer-child.mjs <runtime|runtime-strip|client-node> <namespace> <kubeconfig>
import { CoreV1Api, KubeConfig, makeInformer } from '@kubernetes/client-node';
import { KubeClient, SharedInformer, stripManagedFields } from '@ngx/kube-runtime';

const [variant, namespace, kubeconfigPath] = process.argv.slice(2);
const gc = globalThis.gc ?? (() => {});
const mb = (bytes) => Math.round((bytes / 1024 / 1024) * 10) / 10;

gc();
const baselineRss = process.memoryUsage().rss;
const kubeConfig = new KubeConfig();
kubeConfig.loadFromFile(kubeconfigPath);
const started = performance.now();
let objects = 0;
let stop = async () => {};

if (variant === 'client-node') {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const informer = makeInformer(kubeConfig, `/api/v1/namespaces/${namespace}/pods`, () =>
    core.listNamespacedPod({ namespace }),
  );
  await informer.start();
  objects = informer.list().length;
  stop = async () => informer.stop();
} else {
  const client = new KubeClient(kubeConfig, { qps: 1000, burst: 1000 });
  const informer = new SharedInformer({
    client,
    resource: { group: '', version: 'v1', plural: 'pods', namespace },
    kind: 'Pod',
    transform: variant === 'runtime-strip' ? stripManagedFields : undefined,
  });
  const abort = new AbortController();
  const running = informer.run(abort.signal);
  await informer.waitForCacheSync();
  objects = informer.cache.size;
  stop = async () => {
    abort.abort();
    await running;
    client.close();
  };
}
const syncMs = performance.now() - started;
gc();
const { rss, heapUsed } = process.memoryUsage();
console.log(
  JSON.stringify({
    variant,
    objects,
    syncMs: Math.round(syncMs),
    rssMb: mb(rss),
    rssGrowthMb: mb(rss - baselineRss),
    heapMb: mb(heapUsed),
  }),
);
await stop();
process.exit(0);
