import type { V1Pod } from '@kubernetes/client-node';
import { isActive, isReady } from '../../apps/api/src/controller/pod-plan.js';
import {
  DeletedFinalStateUnknown,
  SharedInformer,
  type KubeClient,
  type KubeObject,
} from '../../libs/kube-runtime/src/index.js';
import type { Bounds } from './bounds.js';
import { imageOf, statusRolledOut, type RolloutKind, type RolloutOwner } from './kinds.js';

type Pod = V1Pod & KubeObject;

/** Where a bound was broken first, or the worst moment of one object. */
export interface Moment {
  object: string;
  /** Seconds since the image change. */
  at: number;
  pods: number;
  available: number;
  /** Of `pods`, those of the new image. */
  updated: number;
}

export interface BoundsSeen {
  /** Most pods (not terminating, not finished) any one object had at any moment of the rollout. */
  maxPods: number;
  maxPodsAt?: Moment;
  /** Fewest available (ready) pods any one object had at any moment of the rollout. */
  minAvailable: number;
  minAvailableAt?: Moment;
  /** Moments (pod events) at which one object had more pods than the bound, and fewer available. */
  overSurge: number;
  underAvailable: number;
  firstBreak?: Moment & { bound: string };
  /** Objects that broke a bound at least once. */
  objectsBreaking: number;
  withinBounds: boolean;
}

/** What the pod watch saw of the pods during the rollout. */
export interface PodsSeen {
  /** Pod events handled after the image change. */
  events: number;
  created: number;
  /** Pods that got a deletionTimestamp (a graceful DELETE of a scheduled pod). */
  markedTerminating: number;
  /** Pods removed after being marked terminating: kwok's final DELETE of each (its pod-delete stage). */
  removedAfterTerminating: number;
  /** Pods removed at once (an unscheduled pod deleted). */
  removedAtOnce: number;
}

/**
 * One namespace's pods and rolled objects, watched from the bench (a pod informer and one of the objects): for
 * every pod event after `arm()`, the pods of the object it belongs to are counted — pods not terminating and not
 * finished (what maxSurge bounds) and, of those, the ready ones (available: minReadySeconds is 0) — and the most
 * and fewest of any one object are kept. The informer applies a collection's changes in resourceVersion order, so
 * each event's count is the API server's state of that object's pods at that version.
 */
export async function watchRollout(
  client: KubeClient,
  kind: RolloutKind,
  namespace: string,
  options: { replicas: number; bounds: Bounds; image: string },
) {
  const { replicas, bounds, image } = options;
  const pods = new SharedInformer<Pod>({
    client,
    resource: { group: '', version: 'v1', plural: 'pods', namespace },
    kind: 'Pod',
  });
  const owners = new SharedInformer<RolloutOwner>({
    client,
    resource: { group: kind.group, version: kind.version ?? 'v1', plural: kind.plural, namespace },
    kind: kind.kind,
  });

  const byObject = new Map<string, Map<string, Pod>>();
  const updatedAvailable = new Map<string, number>();
  let updatedAvailableTotal = 0;
  let armedAt: number | undefined;
  const breaking = new Set<string>();
  const seen: BoundsSeen = {
    maxPods: 0,
    minAvailable: Infinity,
    overSurge: 0,
    underAvailable: 0,
    objectsBreaking: 0,
    withinBounds: true,
  };
  const podsSeen: PodsSeen = {
    events: 0,
    created: 0,
    markedTerminating: 0,
    removedAfterTerminating: 0,
    removedAtOnce: 0,
  };
  const series: [number, number][] = [];
  const since = () => (armedAt === undefined ? 0 : (performance.now() - armedAt) / 1000);

  const record = (t: number) => {
    const last = series.at(-1);
    if (last && last[1] === updatedAvailableTotal) return;
    // Within 50 ms of the last point, the later value replaces it: at most ~20 points a second.
    if (last && t - last[0] < 0.05 && series.length > 1) last[1] = updatedAvailableTotal;
    else series.push([t, updatedAvailableTotal]);
  };

  const evaluate = (object: string) => {
    const active = [...(byObject.get(object)?.values() ?? [])].filter(isActive);
    const available = active.filter(isReady);
    const updated = available.filter((pod) => imageOf(pod) === image).length;
    updatedAvailableTotal += updated - (updatedAvailable.get(object) ?? 0);
    updatedAvailable.set(object, updated);
    if (armedAt === undefined) return;
    const t = since();
    const moment = {
      object,
      at: t,
      pods: active.length,
      available: available.length,
      updated: active.filter((pod) => imageOf(pod) === image).length,
    };
    if (active.length > seen.maxPods) [seen.maxPods, seen.maxPodsAt] = [active.length, moment];
    if (available.length < seen.minAvailable)
      [seen.minAvailable, seen.minAvailableAt] = [available.length, moment];
    const over = active.length > bounds.maxPods;
    const under = available.length < bounds.minAvailable;
    if (over) seen.overSurge++;
    if (under) seen.underAvailable++;
    if (over || under) {
      seen.firstBreak ??= {
        ...moment,
        bound: over ? `more than ${bounds.maxPods} pods` : `fewer than ${bounds.minAvailable} available`,
      };
      breaking.add(object);
      seen.objectsBreaking = breaking.size;
      seen.withinBounds = false;
    }
    record(t);
  };

  const put = (pod: Pod) => {
    const object = kind.objectOf(pod);
    if (object === undefined) return undefined;
    let objectPods = byObject.get(object);
    if (!objectPods) byObject.set(object, (objectPods = new Map()));
    objectPods.set(pod.metadata!.uid!, pod);
    return object;
  };
  pods.addEventHandler({
    add: (pod, initial) => {
      const object = put(pod);
      if (armedAt !== undefined) {
        podsSeen.events++;
        if (!initial) podsSeen.created++;
      }
      if (object !== undefined) evaluate(object);
    },
    update: (previous, pod) => {
      const object = put(pod);
      if (armedAt !== undefined) {
        podsSeen.events++;
        if (!previous.metadata?.deletionTimestamp && pod.metadata?.deletionTimestamp)
          podsSeen.markedTerminating++;
      }
      if (object !== undefined) evaluate(object);
    },
    delete: (deleted) => {
      const pod = deleted instanceof DeletedFinalStateUnknown ? deleted.object : deleted;
      const object = kind.objectOf(pod);
      byObject.get(object ?? '')?.delete(pod.metadata!.uid!);
      if (armedAt !== undefined) {
        podsSeen.events++;
        if (pod.metadata?.deletionTimestamp) podsSeen.removedAfterTerminating++;
        else podsSeen.removedAtOnce++;
      }
      if (object !== undefined) evaluate(object);
    },
  });

  const abort = new AbortController();
  const runs = [pods.run(abort.signal), owners.run(abort.signal)];
  await Promise.all([pods.waitForCacheSync(), owners.waitForCacheSync()]);

  const podsOf = (object: string) => [...(byObject.get(object)?.values() ?? [])];
  /** Every one of `count` objects has exactly `replicas` pods not terminating, all ready and running `want`. */
  const podsAt = (count: number, want: string) =>
    byObject.size >= count &&
    owners.cache.list().every((owner) => {
      const active = podsOf(owner.metadata!.name!).filter(isActive);
      return active.length === replicas && active.every((pod) => isReady(pod) && imageOf(pod) === want);
    });

  return {
    /** Starts the rollout's clock and its bounds: from now on every pod event is counted. */
    arm: () => {
      armedAt = performance.now();
      for (const object of byObject.keys()) evaluate(object);
      series.length = 0;
      series.push([0, updatedAvailableTotal]);
    },
    since,
    /** Every object's status reports the rollout done for the generation its patch made. */
    statusDone: (generations: Map<string, number>) =>
      owners.cache.size === generations.size &&
      owners.cache
        .list()
        .every((owner) =>
          statusRolledOut(owner, replicas, generations.get(owner.metadata!.name!) ?? Infinity),
        ),
    /** Every object's pods, as the pod watch sees them: `replicas` of `image`, all ready, nothing else active. */
    podsDone: (count: number) => owners.cache.size === count && podsAt(count, image),
    /** Every object has `replicas` ready pods of `want`, before the rollout (the setup is done). */
    settledOn: (count: number, want: string) =>
      owners.cache.size === count &&
      owners.cache
        .list()
        .every((owner) => statusRolledOut(owner, replicas, owner.metadata?.generation ?? 0)) &&
      podsAt(count, want),
    /** Every object's pods, as the pod watch sees them: `replicas` of `want`, all ready, nothing else active. */
    podsOn: (count: number, want: string) => owners.cache.size === count && podsAt(count, want),
    /** The rolled objects as last seen. */
    owners: () => owners.cache.list(),
    /** No pod of another image is left, terminating ones included. */
    oldPodsGone: () => pods.cache.list().every((pod) => imageOf(pod) === image),
    updatedAvailable: () => updatedAvailableTotal,
    finish: (t: number) => series.push([t, updatedAvailableTotal]),
    bounds: () => ({ ...seen }),
    pods: () => ({ ...podsSeen }),
    series: () => series.map(([t, v]) => [Math.round(t * 1000) / 1000, v] as [number, number]),
    stop: async () => {
      abort.abort();
      await Promise.all(runs);
    },
  };
}

export type RolloutWatch = Awaited<ReturnType<typeof watchRollout>>;
