import { describe, expect, it } from 'vitest';
import { controllerArgs, crdManifests } from './argo-rollouts.js';

describe('crdManifests', () => {
  it('keeps the YAML manifests, sorted, without the kustomization', () => {
    expect(
      crdManifests(['rollout-crd.yaml', 'kustomization.yaml', 'analysis-run-crd.yaml', 'README.md', 'x.yml']),
    ).toEqual(['analysis-run-crd.yaml', 'rollout-crd.yaml', 'x.yml']);
  });

  it('is empty for a folder without manifests', () => {
    expect(crdManifests(['kustomization.yaml', 'notes.txt'])).toEqual([]);
  });
});

describe('controllerArgs', () => {
  it('watches every namespace as one instance, on the ports given, at info level by default', () => {
    expect(controllerArgs({ kubeconfig: '/k', metricsPort: 1, healthzPort: 2 })).toEqual([
      '--kubeconfig',
      '/k',
      '--namespaced=false',
      '--leader-elect=false',
      '--metricsPort=1',
      '--healthzPort=2',
      '--loglevel=info',
    ]);
  });

  it('passes client limits and a log level only when given', () => {
    const args = controllerArgs({
      kubeconfig: '/k',
      metricsPort: 1,
      healthzPort: 2,
      qps: 50,
      burst: 100,
      logLevel: 'warn',
    });
    expect(args).toContain('--qps=50');
    expect(args).toContain('--burst=100');
    expect(args).toContain('--loglevel=warn');
  });
});
