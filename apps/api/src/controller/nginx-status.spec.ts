import type { V1Pod } from '@kubernetes/client-node';
import { MANAGED_BY, podTemplateOf, revisionOf, type Nginx } from '@ngx/nginx-api';
import { describe, expect, it } from 'vitest';
import { isSettled, nginxStatus, statusChanged } from './nginx-status.js';
import { defaultTopologySpread, podFor, selectorString } from './pod-builder.js';

const nginx = (replicas: number, status?: Nginx['status']): Nginx => ({
  apiVersion: 'mycompany.com/v1',
  kind: 'Nginx',
  metadata: { name: 'web', namespace: 'default', uid: 'uid-1', generation: 4 },
  spec: { replicas },
  ...(status ? { status } : {}),
});

/** The revision of every Nginx here (none sets anything but replicas). */
const REVISION = revisionOf(podTemplateOf({ replicas: 1 }));

const pod = (ready: boolean, phase = 'Running', revision = REVISION): V1Pod => ({
  metadata: {
    name: `web-${Math.random().toString(36).slice(2, 7)}`,
    labels: { 'mycompany.com/revision': revision },
  },
  status: { phase, conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
});

/** A pod of the Nginx's current revision, as the controller would create it. */
const podOf = (owner: Nginx): V1Pod => {
  const template = podTemplateOf(owner.spec);
  return podFor(owner, template, revisionOf(template));
};

const T1 = '2026-11-22T10:00:00Z';
const T2 = '2026-11-22T10:05:00Z';

describe('podFor', () => {
  it('builds a pod with a generated name, our labels, a blocking controller reference and port 80', () => {
    const built = podOf({ ...nginx(1), spec: { replicas: 1, image: 'nginx:1.27' } });
    expect(built.metadata).toEqual({
      generateName: 'web-',
      namespace: 'default',
      labels: {
        'app.kubernetes.io/name': 'nginx',
        'mycompany.com/nginx': 'web',
        'app.kubernetes.io/managed-by': MANAGED_BY,
        'mycompany.com/revision': revisionOf(podTemplateOf({ replicas: 1, image: 'nginx:1.27' })),
      },
      ownerReferences: [
        {
          apiVersion: 'mycompany.com/v1',
          kind: 'Nginx',
          name: 'web',
          uid: 'uid-1',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    });
    expect(built.spec?.containers).toMatchObject([
      { name: 'nginx', image: 'nginx:1.27', ports: [{ name: 'http', containerPort: 80 }] },
    ]);
  });

  it('passes the restricted Pod Security Standard with no ServiceAccount token, nginx writing to emptyDirs', () => {
    const { spec } = podOf({ ...nginx(1), spec: { replicas: 1, image: 'nginx:1.27' } });
    expect(spec).toEqual({
      automountServiceAccountToken: false,
      securityContext: {
        runAsNonRoot: true,
        runAsUser: 101,
        runAsGroup: 101,
        seccompProfile: { type: 'RuntimeDefault' },
        sysctls: [{ name: 'net.ipv4.ip_unprivileged_port_start', value: '80' }],
      },
      topologySpreadConstraints: defaultTopologySpread('web'),
      containers: [
        {
          name: 'nginx',
          image: 'nginx:1.27',
          ports: [{ name: 'http', containerPort: 80 }],
          securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
          volumeMounts: [
            { name: 'nginx-cache', mountPath: '/var/cache/nginx' },
            { name: 'nginx-run', mountPath: '/var/run' },
          ],
        },
      ],
      volumes: [
        { name: 'nginx-cache', emptyDir: {} },
        { name: 'nginx-run', emptyDir: {} },
      ],
    });
  });

  it('builds every pod from new objects', () => {
    const first = podOf(nginx(1));
    first.spec!.securityContext!.runAsUser = 0;
    first.spec!.containers[0]!.securityContext!.capabilities!.drop!.pop();
    first.spec!.volumes!.pop();
    const second = podOf(nginx(1));
    expect(second.spec?.securityContext?.runAsUser).toBe(101);
    expect(second.spec?.containers[0]?.securityContext?.capabilities?.drop).toEqual(['ALL']);
    expect(second.spec?.volumes).toHaveLength(2);
  });

  it('defaults the image to nginx:latest', () => {
    expect(podOf(nginx(1)).spec?.containers[0]?.image).toBe('nginx:latest');
  });

  it('has a selector string for the scale subresource', () => {
    expect(selectorString('web')).toBe('app.kubernetes.io/name=nginx,mycompany.com/nginx=web');
  });
});

describe('nginxStatus', () => {
  it('reports a converged Nginx as available and not progressing', () => {
    const status = nginxStatus(nginx(2), [pod(true), pod(true)], undefined, T1);
    expect(status).toMatchObject({
      replicas: 2,
      readyReplicas: 2,
      availableReplicas: 2,
      observedGeneration: 4,
      message: '2 of 2 pods ready.',
    });
    expect(status.conditions?.map((c) => [c.type, c.status, c.reason])).toEqual([
      ['Available', 'True', 'MinimumReplicasAvailable'],
      ['Progressing', 'False', 'ReplicasReady'],
    ]);
  });

  it('counts only active pods and says what is happening while scaling', () => {
    const status = nginxStatus(
      nginx(3),
      [pod(true), pod(false, 'Pending'), pod(false, 'Failed')],
      undefined,
      T1,
    );
    expect(status).toMatchObject({
      replicas: 2,
      readyReplicas: 1,
      message: '1 of 3 pods ready (2 running).',
    });
    expect(status.conditions?.find((c) => c.type === 'Progressing')).toMatchObject({
      status: 'True',
      reason: 'ScalingUp',
    });
    expect(status.conditions?.find((c) => c.type === 'Available')?.status).toBe('False');
  });

  it('carries a refused creation into ReplicaFailure and the message', () => {
    const failure = { reason: 'FailedCreate' as const, message: 'pods "web-" is forbidden: exceeded quota' };
    const status = nginxStatus(nginx(2), [], failure, T1);
    expect(status.conditions?.find((c) => c.type === 'ReplicaFailure')).toMatchObject({
      status: 'True',
      reason: 'FailedCreate',
      message: failure.message,
    });
    expect(status.message).toBe(
      '0 of 2 pods ready (0 running). Creating pods failed: pods "web-" is forbidden: exceeded quota',
    );
  });

  it("says how many pods the scheduler cannot place, with the scheduler's reason for one", () => {
    const why = "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector.";
    const pending = (): V1Pod => ({
      ...pod(false, 'Pending'),
      status: {
        phase: 'Pending',
        conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: why }],
      },
    });
    const status = nginxStatus(nginx(3), [pending(), pending(), pod(true)], undefined, T1);
    expect(status.message).toBe(`1 of 3 pods ready. 2 pods cannot be scheduled: ${why}`);
    expect(status.conditions?.find((c) => c.type === 'Progressing')?.message).toBe(status.message);
    expect(nginxStatus(nginx(1), [pod(false, 'Pending')], undefined, T1).message).toBe('0 of 1 pod ready.');
  });

  it('says "Scaled to 0 pods." at zero', () => {
    expect(nginxStatus(nginx(0), [], undefined, T1).message).toBe('Scaled to 0 pods.');
  });

  it('keeps transition times while a condition keeps its status, so a steady state writes nothing', () => {
    const first = nginxStatus(nginx(1), [pod(true)], undefined, T1);
    const again = nginxStatus(nginx(1, first), [pod(true)], undefined, T2);
    expect(statusChanged(first, again)).toBe(false);
    const changed = nginxStatus(nginx(1, first), [pod(false)], undefined, T2);
    expect(statusChanged(first, changed)).toBe(true);
    expect(changed.conditions?.find((c) => c.type === 'Available')?.lastTransitionTime).toBe(T2);
    expect(changed.conditions?.find((c) => c.type === 'Progressing')?.lastTransitionTime).toBe(T2);
  });
});

describe('isSettled', () => {
  const ready = (n: number) => Array.from({ length: n }, () => pod(true));

  it('is true when every pod is there and ready, or when something failed', () => {
    expect(isSettled(nginxStatus(nginx(3), ready(3), undefined, T1))).toBe(true);
    expect(isSettled(nginxStatus(nginx(0), [], undefined, T1))).toBe(true);
    const failure = { reason: 'FailedCreate', message: 'quota' } as const;
    expect(isSettled(nginxStatus(nginx(3), ready(1), failure, T1))).toBe(true);
  });

  it('is false while pods are missing, surplus or not ready', () => {
    expect(isSettled(nginxStatus(nginx(3), ready(2), undefined, T1))).toBe(false);
    expect(isSettled(nginxStatus(nginx(1), ready(2), undefined, T1))).toBe(false);
    expect(isSettled(nginxStatus(nginx(1), [pod(false, 'Pending')], undefined, T1))).toBe(false);
  });
});

describe('a repeated refusal', () => {
  it('keeps the first ReplicaFailure message while the reason stays, so the status does not change', () => {
    const first = nginxStatus(
      nginx(3),
      [],
      { reason: 'FailedCreate', message: 'pods "web-a" is forbidden' },
      T1,
    );
    const again = nginxStatus(
      nginx(3, first),
      [],
      { reason: 'FailedCreate', message: 'pods "web-b" is forbidden' },
      T2,
    );
    expect(again.conditions?.find((c) => c.type === 'ReplicaFailure')?.message).toBe(
      'pods "web-a" is forbidden',
    );
    expect(statusChanged(first, again)).toBe(false);
    const other = nginxStatus(
      nginx(1, again),
      [pod(true), pod(true)],
      { reason: 'FailedDelete', message: 'no' },
      T2,
    );
    expect(other.conditions?.find((c) => c.type === 'ReplicaFailure')?.message).toBe('no');
  });
});

describe('nginxStatus, a config that is not valid nginx', () => {
  it('says so on Progressing (False, InvalidConfig) with the line, and is settled', () => {
    const invalid: Nginx = { ...nginx(2), spec: { replicas: 2, config: 'server {\n  listen 80\n}\n' } };
    const status = nginxStatus(invalid, [pod(true), pod(true)], undefined, T1);
    const progressing = status.conditions?.find((c) => c.type === 'Progressing');
    expect(progressing).toMatchObject({ status: 'False', reason: 'InvalidConfig' });
    expect(progressing?.message).toMatch(/line 3/);
    expect(isSettled(status)).toBe(true);
  });
});

describe('canary and rollbackOnFailure', () => {
  const STABLE = 'stable-rev';
  const canaryNginx = (status: Nginx['status'], spec: Partial<Nginx['spec']> = {}): Nginx => ({
    ...nginx(4, status),
    spec: {
      replicas: 4,
      strategy: { type: 'Canary', canary: { steps: [{ setWeight: 25 }, { pause: {} }] } },
      ...spec,
    },
  });
  const mixed = () => [
    pod(true),
    pod(true, 'Running', STABLE),
    pod(true, 'Running', STABLE),
    pod(true, 'Running', STABLE),
  ];
  const progressing = (status: Nginx['status']) => status?.conditions?.find((c) => c.type === 'Progressing');

  it('carries status.canary and names the step on Progressing', () => {
    const canary = { revision: REVISION, step: 0, weight: 25, phase: 'Progressing' as const };
    const status = nginxStatus(canaryNginx({ currentRevision: STABLE }), mixed(), undefined, T1, { canary });
    expect(status.canary).toEqual(canary);
    expect(progressing(status)).toMatchObject({ status: 'True', reason: 'Canary' });
    expect(progressing(status)?.message).toContain(`canary step 1/2: 25% on ${REVISION}`);
  });

  it('is Unknown/CanaryPaused while paused (never stalled), False/CanaryAborted once aborted', () => {
    const old = { currentRevision: STABLE, conditions: [] };
    const paused = {
      revision: REVISION,
      step: 1,
      weight: 25,
      phase: 'Paused' as const,
      message: 'until a promote',
    };
    const late = '2026-11-23T10:00:00Z';
    expect(
      progressing(nginxStatus(canaryNginx(old), mixed(), undefined, late, { canary: paused })),
    ).toMatchObject({
      status: 'Unknown',
      reason: 'CanaryPaused',
    });
    const aborted = { ...paused, phase: 'Aborted' as const, weight: 0 };
    const status = nginxStatus(canaryNginx(old), mixed(), undefined, T1, { canary: aborted });
    expect(progressing(status)).toMatchObject({ status: 'False', reason: 'CanaryAborted' });
    expect(isSettled(status)).toBe(true);
    // The pods go back, not forward: the message counts the stable ones.
    expect(status.message).toContain('Going back: 3 of 4 on the stable revision.');
    expect(status.message).not.toContain('Rolling out');
  });

  it('a canary change alone is a status change', () => {
    const canary = { revision: REVISION, step: 0, weight: 25, phase: 'Progressing' as const };
    const before = nginxStatus(canaryNginx({ currentRevision: STABLE }), mixed(), undefined, T1, { canary });
    const after = nginxStatus(canaryNginx({ currentRevision: STABLE }), mixed(), undefined, T1, {
      canary: {
        ...canary,
        step: 1,
      },
    });
    expect(statusChanged(before, after)).toBe(true);
  });

  it('turns RolledBack (False) instead of ProgressDeadlineExceeded with rollbackOnFailure, held for the generation', () => {
    const spec = {
      strategy: { type: 'RollingUpdate' as const },
      progressDeadlineSeconds: 60,
      rollbackOnFailure: true,
    };
    const first = nginxStatus(canaryNginx({ currentRevision: STABLE }, spec), mixed(), undefined, T1);
    const stalled = nginxStatus(canaryNginx(first, spec), mixed(), undefined, T2);
    expect(progressing(stalled)).toMatchObject({
      status: 'False',
      reason: 'RolledBack',
      observedGeneration: 4,
    });
    expect(progressing(stalled)?.message).toContain(
      `Rolled back to ${STABLE}: no progress for 60 s rolling out ${REVISION}`,
    );
    // Held while the generation is the same, cause kept; all pods back on stable still says so.
    const back = [
      pod(true, 'Running', STABLE),
      pod(true, 'Running', STABLE),
      pod(true, 'Running', STABLE),
      pod(true, 'Running', STABLE),
    ];
    const held = nginxStatus(canaryNginx(stalled, spec), back, undefined, T2);
    expect(progressing(held)).toMatchObject({ status: 'False', reason: 'RolledBack' });
    expect(progressing(held)?.message).toContain('no progress for 60 s');
    // A new generation lets the rollout go again.
    const changed = {
      ...canaryNginx(stalled, spec),
      metadata: { ...canaryNginx(stalled, spec).metadata, generation: 5 },
    };
    expect(progressing(nginxStatus(changed, back, undefined, T2))?.reason).not.toBe('RolledBack');
    // Without rollbackOnFailure: ProgressDeadlineExceeded, as before.
    const plain = nginxStatus(
      canaryNginx(first, { ...spec, rollbackOnFailure: false }),
      mixed(),
      undefined,
      T2,
    );
    expect(progressing(plain)?.reason).toBe('ProgressDeadlineExceeded');
  });
});
