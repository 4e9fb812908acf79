import type { V1Pod } from '@kubernetes/client-node';
import {
  endedWithTerm,
  errorMessage,
  type EventRecorder,
  type Expectations,
  type InformerCache,
  type KubeObject,
  type KubeRequester,
  objectKey,
  type ReconcileResult,
  type RuntimeLogger,
  tracedRequester,
} from '@ngx/kube-runtime';
import {
  ANNOTATION_ABORT,
  ANNOTATION_PROMOTE,
  LABEL_REVISION,
  type Nginx,
  type NginxAnalysisMeasurement,
  type NginxBlueGreenStatus,
  type NginxCanaryStatus,
  type NginxGateRun,
  type NginxPodTemplate,
  type NginxRevisionData,
  SECRET_NOT_FOUND,
  jsonEqual,
} from '@ngx/nginx-api';
import type { AnalysisMeasurer } from '../analysis/analysis-run.js';
import { canaryMove } from './canary-audit.js';
import { planCanary, planRollback, withMeasurement, type CanaryPlan } from './canary-plan.js';
import { OwnedSync, type OwnedCaches } from './owned-sync.js';
import { routedPlan } from './canary-routing.js';
import { RouteSync } from './route-sync.js';
import { blueGreenMove } from './canary-audit.js';
import { blueGreenPlan } from './bluegreen-rollout.js';
import { gateOutcomeText, withGateRun, type GateCall } from './gate-runs.js';
import { callGateWebhook, type GateContext } from '../analysis/gate-webhook.js';
import { RolloutServiceSync } from './rollout-service-sync.js';
import { WrittenRoutes } from './written-routes.js';
import {
  deadlineIn,
  isSettled,
  nginxStatus,
  podCounts,
  rolloutView,
  rollingBack,
  statusChanged,
  type OwnedStatus,
  type ReplicaFailure,
  type RolloutView,
} from './nginx-status.js';
import { BY_NGINX_LABEL, PODS_BY_NGINX } from '../kube/pod-index.js';
import { claimPods } from './pod-ownership.js';
import { isActive, slowStartBatches } from './pod-plan.js';
import { PodWrites, type PodWriteMetrics } from './pod-writes.js';
import { ProgressPacing } from './progress-pacing.js';
import { planRollout, type RolloutPlan } from './rollout-plan.js';
import { ReconcileReport } from './reconcile-report.js';
import type { SyncContext } from './sync-context.js';
import { writeStatus, type StatusWrite } from './status-write.js';
import type { StrayPods } from './stray-pods.js';
import {
  firstMissingSecret,
  reportsSecretNotFound,
  secretCheckDue,
  secretNotFound,
  secretsMounted,
} from './tls-secret.js';

const NEVER = new AbortController().signal;

export interface ReconcilerDeps {
  /** Every request goes through it: the leadership term's FencedClient, so nothing is written after the term. */
  client: KubeRequester;
  nginxes: InformerCache<Nginx & KubeObject>;
  pods: InformerCache<V1Pod & KubeObject>;
  /** The caches of ControllerRevisions, ConfigMaps, Services, budgets and EndpointSlices carrying our label. */
  owned: OwnedCaches;
  expectations: Expectations;
  /** Pods that may have left our label selector while still owned: checked and released on the owner's reconcile. */
  strays: StrayPods;
  events: EventRecorder;
  logger: RuntimeLogger;
  /** Most pods created or deleted in one sync (the ReplicaSet controller's burstReplicas). */
  burst: number;
  /** Shortest time between a progress status write of one Nginx and its last status write or pod action (1 s). */
  statusIntervalMs?: number;
  /** Progress status writes a second shared by all Nginxes making progress at once (10; see ProgressPacing). */
  progressWritesPerSecond?: number;
  now?: () => number;
  metrics?: PodWriteMetrics;
  /** How often an Nginx whose spec.tls Secret is missing looks for it again (10 s; nothing watches Secrets). */
  secretRecheckMs?: number;
  /**
   * How often an Nginx with spec.tls whose pods need nothing looks for its Secret all the same (60 s), so a Secret
   * deleted under running pods shows in the status: one GET per TLS Nginx per period.
   */
  tlsRecheckMs?: number;
  /** What canary analysis steps measure with; none: each measurement is Inconclusive ("no analysis provider"). */
  analysis?: AnalysisMeasurer;
}

const SECRET_RECHECK_MS = 10_000;
/**
 * The kubelet refreshes a mounted Secret about once a minute, so a minute is as soon as a deletion matters to
 * anyone; it costs 1000 TLS Nginxes about 17 metadata GETs a second, within the client's default QPS.
 */
const TLS_RECHECK_MS = 60_000;

/** A sync that could not do everything: retried through the queue with backoff. */
export class ReconcileError extends Error {
  override name = 'ReconcileError';
}

/**
 * One reconcile of one Nginx: read it and its pods from the caches (never LIST the API server), release pods
 * that left its selector, adopt orphans (after a fresh read proves the Nginx is still there and not being
 * deleted), create or delete pods to reach spec.replicas — unless pods from the last sync are still expected to
 * show up in the cache — and write status when it changed. It stops at the next step once `signal` aborts.
 */
/**
 * What one reconcile writes through: the term's client (each request marked with the reconcile's trace, when
 * traced), and the pod and owned-object writers bound to it.
 */
interface ReconcileWrites {
  client: KubeRequester;
  pods: PodWrites;
  owned: OwnedSync;
  /** The Services of a canary's trafficRouting or of a blue-green rollout. */
  services: RolloutServiceSync;
  /** A canary's trafficRouting: its HTTPRoute (and Services, first). */
  routes: RouteSync;
}

export class NginxReconciler {
  private readonly pacing: ProgressPacing;
  /** The writers of untraced reconciles, made once; a traced reconcile gets its own (writesIn). */
  private readonly untraced: ReconcileWrites;
  /** When each Nginx's spec.tls Secret was last looked for (by a pod creation or the steady recheck). */
  private readonly secretCheckedAt = new Map<string, number>();
  /**
   * The resourceVersion each Nginx had when this reconciler last wrote its status: while the cache still shows
   * it, the cache has not seen that write. A rollout that acts on the world from its status waits for it
   * (STATUS_CACHE_WAIT_MS at a time): a canary with trafficRouting (an older trafficWeight written back is a flap),
   * a webhook gate (called again, a smoke test runs twice) and a blue-green switch.
   */
  private readonly statusWrittenOver = new Map<string, string>();
  /** The route each canary last had written here, for a status.canary whose write failed after the route's. */
  private readonly writtenRoutes = new WrittenRoutes();

  constructor(private readonly deps: ReconcilerDeps) {
    this.untraced = this.writers(deps.client);
    this.pacing = new ProgressPacing({
      intervalMs: deps.statusIntervalMs ?? 1000,
      perSecond: deps.progressWritesPerSecond ?? 10,
      now: () => this.now(),
    });
  }

  /** Reconciles `key`, noting what it saw and did in `report` (also when it throws). */
  /** `trace`: the trace it runs in (its requests' KubeRequest.trace), when traced. */
  async reconcile(
    key: string,
    report = new ReconcileReport(),
    signal: AbortSignal = NEVER,
    trace?: unknown,
  ): Promise<ReconcileResult> {
    const writes =
      trace === undefined ? this.untraced : this.writers(tracedRequester(this.deps.client, trace));
    const { nginxes, pods, expectations, strays } = this.deps;
    const cached = nginxes.get(key);
    if (!cached) {
      expectations.delete(key); // deleted: the garbage collector removes its pods
      strays.forget(key);
      this.pacing.forget(key);
      this.secretCheckedAt.delete(key);
      this.statusWrittenOver.delete(key);
      this.writtenRoutes.forget(key);
      return;
    }
    if (cached.metadata?.deletionTimestamp) return;
    const writtenOver = this.statusWrittenOver.get(key);
    if (
      writtenOver !== undefined &&
      writtenOver === cached.metadata?.resourceVersion &&
      actsFromStatus(cached as Nginx)
    )
      return { requeueAfterMs: STATUS_CACHE_WAIT_MS };
    const nginx = structuredClone(cached) as Nginx;
    report.observe(nginx);
    // Before the pods are read, as the ReplicaSet controller does: when every creation and deletion this key
    // expects has been seen, the pods read next hold them all. Checked after the awaits below instead, an
    // expectation met meanwhile would be judged against pods read before it was: one pod too few, created twice.
    const expectationsMet = expectations.satisfied(key);
    const { owned, orphans, mislabelled } = claimPods(nginx, pods.byIndex(PODS_BY_NGINX, key));
    for (const pod of mislabelled) await writes.pods.release(nginx, pod, report);
    await writes.pods.releaseStrays(key, nginx, report);
    if (orphans.length > 0) {
      const notAdopting = await writes.pods.whyNotAdopt(nginx);
      if (notAdopting) throw new ReconcileError(notAdopting);
      for (const orphan of orphans) {
        const adopted = await writes.pods.adopt(nginx, orphan, report);
        if (adopted) owned.push(adopted);
      }
    }
    signal.throwIfAborted();

    const now = this.now();
    const view = rolloutView(nginx, now);
    const sync: SyncContext = { key, nginx, pods: owned, view, report, signal };
    let failure: ReplicaFailure | undefined;
    let recheckInMs: number | undefined;
    let canary: NginxCanaryStatus | undefined = nginx.status?.canary;
    let blueGreen: NginxBlueGreenStatus | undefined = nginx.status?.blueGreen;
    if (expectationsMet) ({ failure, recheckInMs, canary, blueGreen } = await this.managePods(sync, writes));
    if (expectationsMet && !failure) failure = await this.recheckSecret(sync, now, writes.client);
    signal.throwIfAborted();
    // When the sync fails, the status keeps what it said about the Service and budget until one succeeds.
    let ownedStatus: OwnedStatus = {
      service: nginx.status?.service,
      disruptionBudget: nginx.status?.disruptionBudget,
      ingress: nginx.status?.ingress,
    };
    let ownedFailure: Error | undefined;
    try {
      ownedStatus = await writes.owned.sync(sync);
    } catch (error) {
      if (endedWithTerm(error)) throw error;
      ownedFailure = error instanceof Error ? error : new Error(String(error));
    }
    signal.throwIfAborted();

    const status = nginxStatus(nginx, owned, failure, new Date(now).toISOString(), {
      view,
      owned: ownedStatus,
      canary: nginx.spec.strategy?.type === 'Canary' ? canary : undefined,
      blueGreen: nginx.spec.strategy?.type === 'BlueGreen' ? blueGreen : undefined,
    });
    // The status just turned RolledBack: its pods go back on the next sync (the condition is the state).
    if (!rollingBack(nginx) && rollingBack({ ...nginx, status })) recheckInMs = 0;
    report.counts = {
      desired: nginx.spec.replicas,
      active: status.replicas ?? 0,
      ready: status.readyReplicas ?? 0,
    };
    // A missing Secret is a state to wait out, not an error to back off from: it is looked for again at a steady
    // pace (no Secret event wakes us), so the pods come within secretRecheckMs of its creation.
    if (failure?.reason === SECRET_NOT_FOUND && !ownedFailure) {
      // One Warning when the Secret goes missing (kubectl describe shows it), not one per look.
      if (!reportsSecretNotFound(nginx.status))
        this.deps.events.event(nginx, 'Warning', SECRET_NOT_FOUND, failure.message);
      if (
        statusChanged(nginx.status, status) &&
        (await this.writeStatus(key, nginx, status, writes.client)) === 'written'
      )
        report.record({ kind: 'status' });
      return { requeueAfterMs: this.deps.secretRecheckMs ?? SECRET_RECHECK_MS };
    }
    if (failure || ownedFailure) {
      if (
        statusChanged(nginx.status, status) &&
        (await this.writeStatus(key, nginx, status, writes.client)) === 'written'
      )
        report.record({ kind: 'status' });
      throw new ReconcileError((failure ?? ownedFailure)!.message);
    }
    // A pod turning available (minReadySeconds) and the progress deadline are moments no event announces.
    const due = earliest(recheckInMs, deadlineIn(nginx, status, now), this.secretRecheckIn(sync, now));
    const later = due === undefined ? undefined : { requeueAfterMs: Math.max(1, due) };
    const settled = isSettled(status);
    if (settled) this.pacing.settled(key);
    if (!statusChanged(nginx.status, status)) return later;
    // A canary's step (a blue-green's phase) is its only state: written at once, never left to a paced write a
    // later sync would redo.
    const canaryMoved =
      !jsonEqual(nginx.status?.canary, status.canary) ||
      !jsonEqual(nginx.status?.blueGreen, status.blueGreen);
    const wait = settled || canaryMoved ? 0 : this.pacing.wait(key, podCounts(status));
    if (wait > 0) return { requeueAfterMs: earliest(wait, due)! };
    const written = await this.writeStatus(key, nginx, status, writes.client);
    if (written === 'written') report.record({ kind: 'status' });
    // The stable revision just moved (a canary promoted, a rollback done): a routed canary's Services and route
    // follow it on a sync planned from the new stable revision. No event would wake that sync: this status write
    // is the last change, and a status-only change does not trigger one.
    if (
      written === 'written' &&
      routesTraffic(nginx) &&
      status.currentRevision !== nginx.status?.currentRevision
    )
      return { requeueAfterMs: 1 };
    // Our cache is behind: look again with the key's backoff (no update event is sure to wake us: a status-only
    // change of an Nginx does not trigger a sync).
    if (written === 'conflict') return { requeue: true };
    return later;
  }

  /** The pod and owned-object writers that send through `client`. */
  private writers(client: KubeRequester): ReconcileWrites {
    const { deps } = this;
    const services = new RolloutServiceSync({ client, services: deps.owned.services });
    return {
      client,
      pods: new PodWrites({
        client,
        events: deps.events,
        configMaps: deps.owned.configMaps,
        strays: deps.strays,
        metrics: deps.metrics,
      }),
      owned: new OwnedSync({ client, caches: deps.owned, events: deps.events }),
      services,
      routes: new RouteSync({ client, services, events: deps.events }),
    };
  }

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }

  private get tlsRecheckMs(): number {
    return this.deps.tlsRecheckMs ?? TLS_RECHECK_MS;
  }

  /**
   * Looks for spec.tls's Secret when this sync created no pod and the look is due (secretCheckDue): the
   * SecretNotFound failure while it is missing (the pods are left as they are), else undefined. An answer other
   * than found or 404 is not a failure of the pods': it is looked for again a period later.
   */
  private async recheckSecret(
    sync: SyncContext,
    syncStart: number,
    client: KubeRequester,
  ): Promise<ReplicaFailure | undefined> {
    const { key, nginx, view, signal } = sync;
    const secretName = view.template.tls?.secretName;
    if (!secretName) {
      this.secretCheckedAt.delete(key);
      return undefined;
    }
    const reported = reportsSecretNotFound(nginx.status);
    if (!secretCheckDue(this.secretCheckedAt.get(key), syncStart, this.tlsRecheckMs, reported))
      return undefined;
    this.secretCheckedAt.set(key, this.now());
    const namespace = nginx.metadata.namespace!;
    try {
      const missing = await firstMissingSecret(client, namespace, [secretName], signal);
      return missing === undefined
        ? undefined
        : secretNotFound(namespace, missing, sync.pods.filter(isActive).length);
    } catch (error) {
      if (endedWithTerm(error)) throw error;
      this.deps.logger.warn('could not look for the spec.tls Secret', {
        nginx: key,
        secret: secretName,
        error: errorMessage(error),
      });
      return undefined;
    }
  }

  /** How long until spec.tls's Secret is due to be looked for again; undefined without spec.tls. */
  private secretRecheckIn({ key, view }: SyncContext, now: number): number | undefined {
    if (!view.template.tls) return undefined;
    const checkedAt = this.secretCheckedAt.get(key) ?? now;
    return Math.max(0, checkedAt + this.tlsRecheckMs - now);
  }

  private async managePods(
    sync: SyncContext,
    writes: ReconcileWrites,
  ): Promise<{
    failure?: ReplicaFailure;
    recheckInMs?: number;
    canary?: NginxCanaryStatus;
    blueGreen?: NginxBlueGreenStatus;
  }> {
    const { key, nginx, pods: owned, view, report } = sync;
    const { expectations } = this.deps;
    const plan = await this.plan(sync, writes);
    const moved =
      canaryMove(nginx.status?.canary, plan.canary) ?? blueGreenMove(nginx.status?.blueGreen, plan.blueGreen);
    if (moved) report.record(moved);
    let failure: ReplicaFailure | undefined;

    if (plan.delete.length > 0) {
      expectations.expectDeletions(
        key,
        plan.delete.map((d) => objectKey(d.pod)),
      );
      const results = await Promise.allSettled(
        plan.delete.map(({ pod, reason }) => writes.pods.delete(nginx, pod, reason, report)),
      );
      results.forEach((result, i) => {
        if (result.status === 'fulfilled') return;
        expectations.deletionObserved(key, objectKey(plan.delete[i]!.pod)); // it will not be seen going away
        failure ??= { reason: 'FailedDelete', message: errorMessage(result.reason) };
      });
    }

    const running = owned.filter(isActive).length;
    if (plan.create > 0 && !failure) failure = await this.createPods(sync, writes, view, plan, running);
    if (plan.createStable > 0 && !failure) {
      const stableView = plan.stableView!;
      const stablePlan = { create: plan.createStable, delete: [], createLike: plan.stableModel };
      failure = await this.createPods(sync, writes, stableView, stablePlan, running);
    }
    // Progress writes are paced from the burst's end: under load a burst takes longer than the interval itself.
    if (plan.delete.length > 0 || plan.create > 0 || plan.createStable > 0) this.pacing.acted(key);
    return {
      failure,
      recheckInMs: plan.recheckInMs ?? plan.availableInMs,
      canary: plan.canary,
      blueGreen: plan.blueGreen,
    };
  }

  /**
   * What the pods should become now: the canary planner for strategy Canary (taking one due analysis measurement,
   * then planning again with it), every pod back to the stable revision while spec.rollbackOnFailure holds a
   * rollback, else the rolling update or recreate.
   */
  private async plan(
    sync: SyncContext,
    writes: ReconcileWrites,
  ): Promise<
    Omit<CanaryPlan, 'canary'> & {
      canary?: NginxCanaryStatus;
      blueGreen?: NginxBlueGreenStatus;
    } & Partial<StableSource>
  > {
    const { nginx, pods: owned, view, report, signal } = sync;
    const stable = this.stableSource(sync);
    const canaryStrategy = nginx.spec.strategy?.type === 'Canary';
    const blueGreenStrategy = nginx.spec.strategy?.type === 'BlueGreen';
    const trafficRouting = routesTraffic(nginx);
    // No Services of a rollout role to keep: any left from an earlier strategy go.
    if (!trafficRouting && !blueGreenStrategy) await writes.services.ensure(nginx, {}, report);
    if (stable && rollingBack(nginx)) {
      // The rollout of the update revision, if one is under way, is over: Aborted, as an abort leaves it.
      const ROLLED_BACK = 'Rolled back: the progress deadline passed.';
      const ofUpdate = <S extends { revision: string }>(status: S | undefined) =>
        status?.revision === view.updateRevision ? status : undefined;
      const previousCanary = canaryStrategy ? ofUpdate(nginx.status?.canary) : undefined;
      let canary: NginxCanaryStatus | undefined = previousCanary
        ? { ...previousCanary, phase: 'Aborted', weight: 0, message: ROLLED_BACK }
        : nginx.status?.canary;
      const previousBlueGreen = blueGreenStrategy ? ofUpdate(nginx.status?.blueGreen) : undefined;
      const blueGreen: NginxBlueGreenStatus | undefined = previousBlueGreen
        ? { ...previousBlueGreen, phase: 'Aborted', activeRevision: stable.revision, message: ROLLED_BACK }
        : nginx.status?.blueGreen;
      const rollback = planRollback({
        replicas: nginx.spec.replicas,
        stableRevision: stable.revision,
        pods: owned,
        burst: this.deps.burst,
      });
      // As an abort, traffic goes back before the pods do: the active Service (a write that fails throws) or the
      // route's weight to 0 (a write that fails holds the pods).
      if (blueGreenStrategy)
        await writes.services.ensure(
          nginx,
          { active: stable.revision, preview: view.updateRevision },
          report,
        );
      if (trafficRouting) {
        const revisions = { stable: stable.revision, canary: view.updateRevision };
        const outcome = await writes.routes.ensure(nginx, { weight: 0 }, revisions, report, signal);
        if (!outcome.ok && outcome.reason === 'HTTPRouteWriteFailed')
          return { create: 0, createStable: 0, delete: [], canary, ...stable };
        if (outcome.ok && canary) canary = { ...canary, trafficWeight: 0, httpRoute: outcome.route };
      }
      return { ...rollback, canary, blueGreen, ...stable };
    }
    if (blueGreenStrategy) {
      const annotations = nginx.metadata.annotations ?? {};
      const plan = await blueGreenPlan({
        nginx,
        planInput: {
          replicas: nginx.spec.replicas,
          strategy: nginx.spec.strategy?.blueGreen,
          analysis: nginx.spec.analysis,
          stableRevision: stable?.revision,
          updateRevision: view.updateRevision,
          template: view.template,
          pods: owned,
          minReadySeconds: nginx.spec.minReadySeconds ?? 0,
          now: view.now,
          burst: this.deps.burst,
          previous: nginx.status?.blueGreen,
          paused: nginx.spec.paused === true,
          requests: { promote: annotations[ANNOTATION_PROMOTE], abort: annotations[ANNOTATION_ABORT] },
        },
        services: writes.services,
        report,
        measure: (template) => this.measure(nginx, template, view.updateRevision, signal),
        gate: (call) =>
          this.callGate(
            call,
            gateContext(nginx, 'BlueGreen', view.updateRevision, stable?.revision),
            report,
            signal,
          ),
      });
      return { ...plan, ...stable };
    }
    if (!canaryStrategy) {
      const rollout = planRollout({
        replicas: nginx.spec.replicas,
        strategy: nginx.spec.strategy,
        updateRevision: view.updateRevision,
        template: view.template,
        pods: owned,
        minReadySeconds: nginx.spec.minReadySeconds ?? 0,
        now: view.now,
        burst: this.deps.burst,
        paused: nginx.spec.paused === true,
        invalid: view.invalid !== undefined,
      });
      return { ...rollout, createStable: 0 };
    }
    const annotations = nginx.metadata.annotations ?? {};
    const input = {
      replicas: nginx.spec.replicas,
      canary: nginx.spec.strategy?.canary,
      analysis: nginx.spec.analysis,
      rollbackOnFailure: nginx.spec.rollbackOnFailure === true,
      stableRevision: stable?.revision,
      updateRevision: view.updateRevision,
      template: view.template,
      pods: owned,
      minReadySeconds: nginx.spec.minReadySeconds ?? 0,
      now: view.now,
      burst: this.deps.burst,
      previous: trafficRouting
        ? this.writtenRoutes.caughtUp(sync.key, nginx.status?.canary)
        : nginx.status?.canary,
      requests: { promote: annotations[ANNOTATION_PROMOTE], abort: annotations[ANNOTATION_ABORT] },
      paused: nginx.spec.paused === true,
      invalid: view.invalid !== undefined,
      trafficRouting,
    };
    let plan = planCanary(input);
    if (plan.measure && plan.canary) {
      const { run, template } = plan.measure;
      const measurement = await this.measure(nginx, template, view.updateRevision, signal);
      report.record({ kind: 'analysis', object: run, measurement });
      plan = planCanary({ ...input, previous: withMeasurement(plan.canary, run, template, measurement) });
      // A second measurement due in the same sync is taken on the next one.
      if (plan.measure) plan = { ...plan, recheckInMs: 0 };
    }
    if (plan.callGate && plan.canary && !plan.measure) {
      const context = gateContext(nginx, 'Canary', view.updateRevision, stable?.revision, plan.canary);
      const run = await this.callGate(plan.callGate, context, report, signal);
      plan = planCanary({ ...input, previous: withGateRun(plan.canary, run) });
      if (plan.measure || plan.callGate) plan = { ...plan, recheckInMs: 0 };
    }
    if (plan.route)
      plan = await routedPlan({
        nginx,
        plan,
        planInput: input,
        routes: writes.routes,
        report,
        signal,
        held: (revision, route) => this.writtenRoutes.remember(sync.key, revision, route),
      });
    return { ...plan, ...stable };
  }

  /** Calls a webhook gate, records its verdict in the audit, and answers its run. */
  private async callGate(
    call: GateCall,
    context: Omit<GateContext, 'gate'>,
    report: ReconcileReport,
    signal: AbortSignal,
  ): Promise<NginxGateRun> {
    const verdict = await callGateWebhook(
      call.webhook,
      { gate: call.run, ...context },
      { signal, now: () => new Date(this.now()) },
    );
    const run: NginxGateRun = { name: call.run, step: call.step, ...verdict };
    report.record({ kind: 'gate', object: call.run, reason: gateOutcomeText(run) });
    return run;
  }

  private async measure(
    nginx: Nginx,
    template: NonNullable<Nginx['spec']['analysis']>[number],
    revision: string,
    signal: AbortSignal,
  ): Promise<NginxAnalysisMeasurement> {
    const at = new Date(this.now()).toISOString();
    if (!this.deps.analysis)
      return { at, query: template.prometheus.query, phase: 'Inconclusive', message: 'no analysis provider' };
    const target = { namespace: nginx.metadata.namespace!, name: nginx.metadata.name!, revision };
    return this.deps.analysis.measure(template, target, signal);
  }

  /**
   * The stable revision (status.currentRevision) when its pods can be made: from its ControllerRevision's
   * template, or like one of its pods still running. Undefined when there is none to go back to.
   */
  private stableSource({ key, nginx, pods: owned, view }: SyncContext): StableSource | undefined {
    const revision = nginx.status?.currentRevision;
    if (!revision || revision === view.updateRevision) return undefined;
    const recorded = this.deps.owned.revisions
      .byIndex(BY_NGINX_LABEL, key)
      .find((r) => r.metadata?.labels?.[LABEL_REVISION] === revision);
    const template = (recorded?.data as NginxRevisionData | undefined)?.template as
      NginxPodTemplate | undefined;
    if (template) return { revision, stableView: { ...view, updateRevision: revision, template } };
    const model = owned.find((pod) => pod.metadata?.labels?.[LABEL_REVISION] === revision);
    if (model) return { revision, stableView: view, stableModel: model };
    return undefined;
  }

  /**
   * Creates `plan.create` pods in slow-start batches (once the Secret they mount is found to exist, after the
   * ConfigMap they mount), expecting each; stops at the
   * first refused batch and expects none of the rest. Resolves with why it stopped short, if it did.
   */
  private async createPods(
    sync: SyncContext,
    writes: ReconcileWrites,
    view: RolloutView,
    plan: RolloutPlan,
    running: number,
  ): Promise<ReplicaFailure | undefined> {
    const { key, nginx, report, signal } = sync;
    const { expectations } = this.deps;
    try {
      const namespace = nginx.metadata.namespace!;
      const secrets = secretsMounted(view.template, plan.createLike);
      if (secrets.length > 0) this.secretCheckedAt.set(key, this.now());
      const missing = await firstMissingSecret(writes.client, namespace, secrets, signal);
      if (missing !== undefined) return secretNotFound(namespace, missing, running);
      if (!plan.createLike) await writes.pods.ensureConfigMap(nginx, view, report);
    } catch (error) {
      if (endedWithTerm(error)) throw error;
      return { reason: 'FailedCreate', message: errorMessage(error) };
    }
    expectations.expectCreations(key, plan.create);
    let remaining = plan.create;
    for (const batch of slowStartBatches(plan.create)) {
      if (signal.aborted) break;
      const results = await Promise.allSettled(
        Array.from({ length: batch }, () => writes.pods.create(nginx, view, report, plan.createLike)),
      );
      remaining -= batch;
      const failed = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
      for (let i = 0; i < failed.length; i++) expectations.creationObserved(key);
      if (failed.length > 0) {
        // Stop here: the rest would most likely fail the same way. They are not coming, so expect none.
        for (let i = 0; i < remaining; i++) expectations.creationObserved(key);
        return { reason: 'FailedCreate', message: errorMessage(failed[0]!.reason) };
      }
    }
    return undefined;
  }

  /** Writes status (see writeStatus); a status written paces the next progress write. */
  private async writeStatus(
    key: string,
    nginx: Nginx,
    status: Nginx['status'],
    client: KubeRequester,
  ): Promise<StatusWrite> {
    const written = await writeStatus(client, nginx, status);
    if (written === 'written') {
      this.pacing.acted(key);
      this.statusWrittenOver.set(key, nginx.metadata.resourceVersion!);
    }
    return written;
  }
}

/** How pods of the stable revision are made: from its template (stableView), or like a pod of it (stableModel). */
interface StableSource {
  revision: string;
  stableView?: RolloutView;
  stableModel?: V1Pod;
}

/** What a gate's webhook is told of the rollout it gates. */
function gateContext(
  nginx: Nginx,
  strategy: GateContext['strategy'],
  revision: string,
  stableRevision: string | undefined,
  canary?: NginxCanaryStatus,
): Omit<GateContext, 'gate'> {
  const { namespace, name, uid } = nginx.metadata;
  return {
    nginx: { namespace: namespace!, name: name!, ...(uid ? { uid } : {}) },
    strategy,
    revision,
    ...(stableRevision ? { stableRevision } : {}),
    ...(canary ? { step: canary.step, weight: canary.weight } : {}),
  };
}

/** How long a reconcile waits for the cache to show its last status write (see statusWrittenOver). */
const STATUS_CACHE_WAIT_MS = 50;

/** Whether the Nginx's rollout writes the world from its status: routes, webhook gates, a blue-green switch. */
function actsFromStatus(nginx: Nginx): boolean {
  const strategy = nginx.spec.strategy;
  if (strategy?.type === 'BlueGreen') return true;
  if (strategy?.type !== 'Canary') return false;
  return routesTraffic(nginx) || (strategy.canary?.steps ?? []).some((step) => step.gate?.webhook);
}

const routesTraffic = (nginx: Nginx) =>
  nginx.spec.strategy?.type === 'Canary' && nginx.spec.strategy.canary?.trafficRouting !== undefined;

function earliest(...delays: (number | undefined)[]): number | undefined {
  const known = delays.filter((delay): delay is number => delay !== undefined);
  return known.length ? Math.min(...known) : undefined;
}
