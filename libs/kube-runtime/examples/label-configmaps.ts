// Adds a label to every ConfigMap of one namespace that lacks it, until stopped.
// Run: KUBECONFIG=.cluster/kubeconfig npx tsx libs/kube-runtime/examples/label-configmaps.ts <namespace>
// (outside this repository, import from '@ngx/kube-runtime' instead of '../src/index.js').
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import {
  Controller,
  KubeClient,
  RateLimitingQueue,
  SharedInformer,
  consoleLogger,
  objectKey,
  objectPath,
  splitObjectKey,
  type KubeObject,
  type RuntimeLogger,
} from '../src/index.js';

export const LABEL = { key: 'example.kube-runtime/labelled', value: 'true' };

export interface LabelConfigMapsOptions {
  kubeConfig: KubeConfig;
  namespace: string;
  logger?: RuntimeLogger;
}

/** Runs the controller until `signal` aborts; resolves once every request and timer has stopped. */
export async function run(
  { kubeConfig, namespace, logger = consoleLogger }: LabelConfigMapsOptions,
  signal: AbortSignal,
) {
  const client = new KubeClient(kubeConfig, { qps: 20, burst: 40 });
  const resource = { group: '', version: 'v1', plural: 'configmaps', namespace };
  const informer = new SharedInformer<KubeObject>({ client, resource, kind: 'ConfigMap' });
  const queue = new RateLimitingQueue<string>();
  // Handlers only enqueue a key: they must return at once, and a key added again while it waits is held once.
  const enqueue = (object: KubeObject) => queue.add(objectKey(object));
  informer.addEventHandler({ add: enqueue, update: (_previous, current) => enqueue(current) });

  const controller = new Controller({
    name: 'label-configmaps',
    queue,
    logger,
    waitForSync: (stopping) => informer.waitForCacheSync(stopping),
    // Level-triggered: look at the object as the cache holds it now, not at the event that queued the key.
    reconcile: async (key, stopping) => {
      const configMap = informer.cache.get(key);
      if (!configMap || configMap.metadata?.labels?.[LABEL.key] === LABEL.value) return; // gone, or done
      // A merge patch of one label is safe to repeat, so a cache that lags behind the server does no harm.
      await client.request({
        method: 'PATCH',
        path: objectPath(resource, splitObjectKey(key).name),
        contentType: 'application/merge-patch+json',
        body: { metadata: { labels: { [LABEL.key]: LABEL.value } } },
        signal: stopping,
      }); // a throw (an outage, a ConfigMap deleted meanwhile) retries the key with backoff
      logger.info('labelled', { configMap: key });
    },
  });
  try {
    await Promise.all([informer.run(signal), controller.run(signal)]);
  } finally {
    client.close();
  }
}

// Run as a program: the kubeconfig from $KUBECONFIG (or ~/.kube/config, or in-cluster), the namespace from the
// first argument or $NAMESPACE; SIGTERM or SIGINT stops it and it exits once everything has stopped.
if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromDefault();
  const stop = new AbortController();
  for (const name of ['SIGTERM', 'SIGINT'] as const) process.once(name, () => stop.abort());
  await run({ kubeConfig, namespace: process.argv[2] ?? process.env.NAMESPACE ?? 'default' }, stop.signal);
}
