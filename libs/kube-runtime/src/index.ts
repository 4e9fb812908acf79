/**
 * A controller runtime for Kubernetes: the machinery between the API server and a `reconcile(key)` function.
 *
 * The pipeline, one collection at a time:
 *
 *   Reflector ─▶ Store ─▶ SharedInformer ─▶ event handlers ─▶ RateLimitingQueue ─▶ Controller ─▶ reconcile
 *
 * - `Reflector` lists, then watches from the list's resourceVersion, resuming from the newest version seen and
 *   relisting on 410 Gone. Its sink gets whole lists or single changes in the server's order, never a partial
 *   list or a malformed event. It does not promise every intermediate state: after a relist only the current
 *   state is known, and deletions missed meanwhile arrive as `DeletedFinalStateUnknown`.
 * - `Store` is the cache, by `namespace/name`, with indexes. Its objects are deep-frozen and shared, so clone one
 *   before changing it. It can lag behind the server.
 * - `SharedInformer` calls handlers after the store changed, in arrival order, synchronously inside the watch
 *   loop. Handlers must return at once, usually after `queue.add(key)`. There is no order across objects or
 *   across informers. A resync replays the cache as `update(object, object)`.
 * - `WorkQueue` and its subclasses hold a waiting key once, never hand a key being processed to a second worker,
 *   and queue a key again if it was added while it was processed. Retries back off per key (`addRateLimited`).
 *   Adds for one key are merged, so a reconcile sees the latest state, not every change.
 * - `Controller` runs workers after the caches have synced. A throw retries the key with backoff, and a
 *   `ReconcileResult` asks for another look. On abort the backlog is dropped and in-flight reconciles see the
 *   signal. Nothing promises one reconcile per change, or exactly one at all: reconciles must be level-triggered
 *   (read the whole current state from the cache) and idempotent.
 *
 * Around the loop: `Expectations` (do not act again before the cache has seen your own creates and deletes);
 * `LeaderElector` (one active instance per Lease; a term is an AbortSignal that ends before the Lease can expire
 * for anyone else); `FencedClient` and `linkedSignal` (nothing is sent after the term or its renew deadline, a
 * write once sent runs to its answer under a server-side deadline, and `settled()` says when every write is
 * decided); `consistentResourceVersion` with `SharedInformer.catchUp` (a successor acts only once its caches are
 * as new as a consistent read made after it took the Lease); `EventRecorder` (aggregated, spam-filtered Events that never block
 * and are never guaranteed to arrive); `KubeClient` (one shared QPS/burst budget, request priorities, no
 * retries). Metrics leave through hooks (`WorkQueueMetrics`, `ReflectorObserver`, `ControllerMetrics`) for the
 * application to bind.
 *
 * Every long-running part takes an AbortSignal, and its `run` settles once nothing it started is left.
 * README.md spells out each stage's guarantees and limits, with a runnable example controller.
 *
 * @packageDocumentation
 */

export * from './abort-scope.js';
export * from './api-error.js';
export * from './backoff.js';
export * from './client.js';
export * from './clock.js';
export * from './controller.js';
export * from './expectations.js';
export * from './fenced-client.js';
export * from './informer.js';
export * from './informer-factory.js';
export * from './logger.js';
export * from './object.js';
export * from './rate-limiter.js';
export * from './reflector.js';
export * from './resource.js';
export * from './resource-version.js';
export * from './store.js';
export * from './token-bucket.js';
export * from './watch-stream.js';
export * from './workqueue/delaying-queue.js';
export * from './workqueue/metrics.js';
export * from './client-metrics.js';
export * from './client-tracing.js';
export * from './workqueue/queue.js';
export * from './workqueue/rate-limiting-queue.js';
export * from './events.js';
export * from './leader-election.js';
