import type { KubeObject } from './object.js';
import { SharedInformer, type InformerOptions } from './informer.js';
import { collectionPath } from './resource.js';

/**
 * Hands out one SharedInformer per collection and selector, so every part of the app that watches pods with
 * the same selector shares one list/watch and one cache. Start them together; stop them with the signal.
 */
export class InformerFactory {
  private readonly informers = new Map<string, SharedInformer<KubeObject>>();
  private readonly runs: Promise<void>[] = [];
  private signal: AbortSignal | undefined;

  informerFor<T extends KubeObject>(options: InformerOptions<T>): SharedInformer<T> {
    const key = [
      options.namespaces?.length
        ? `${collectionPath(options.resource)}@${options.namespaces.join(',')}`
        : collectionPath(options.resource),
      options.labelSelector ?? '',
      options.fieldSelector ?? '',
    ].join('?');
    let informer = this.informers.get(key) as SharedInformer<T> | undefined;
    if (!informer) {
      informer = new SharedInformer<T>(options);
      this.informers.set(key, informer as unknown as SharedInformer<KubeObject>);
      if (this.signal) this.runs.push(informer.run(this.signal));
    }
    return informer;
  }

  /** Starts every informer made so far, and any made later, until the signal aborts. */
  start(signal: AbortSignal): void {
    this.signal = signal;
    for (const informer of this.informers.values()) this.runs.push(informer.run(signal));
  }

  /** Resolves true once every informer has synced, false if the signal aborts first. */
  async waitForCacheSync(signal?: AbortSignal): Promise<boolean> {
    const results = await Promise.all(
      [...this.informers.values()].map((informer) => informer.waitForCacheSync(signal)),
    );
    return results.every(Boolean);
  }

  /** Settles once every started informer has stopped. */
  async stopped(): Promise<void> {
    await Promise.allSettled(this.runs);
  }
}
