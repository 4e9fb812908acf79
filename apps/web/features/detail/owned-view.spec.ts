import type { Nginx, NginxSpec, NginxStatus } from '@ngx/nginx-api';
import { describe, expect, it } from 'vitest';
import { budgetViewOf, ingressViewOf, serviceViewOf } from './owned-view';

const nginx = (spec: Partial<NginxSpec>, status?: NginxStatus): Nginx => ({
  apiVersion: 'mycompany.com/v1',
  kind: 'Nginx',
  metadata: { name: 'web', namespace: 'team-a' },
  spec: { replicas: 2, ...spec },
  ...(status ? { status } : {}),
});

describe('serviceViewOf', () => {
  it('is undefined without spec.service: the controller keeps no Service then', () => {
    expect(serviceViewOf(nginx({}))).toBeUndefined();
  });

  it('applies the controller defaults: ClusterIP, port 80 to the pods port 80', () => {
    expect(serviceViewOf(nginx({ service: {} }))).toMatchObject({
      type: 'ClusterIP',
      portsText: '80 → 80/TCP',
      clusterIP: undefined,
      readyEndpoints: undefined,
    });
  });

  it('shows a node port only for NodePort and LoadBalancer, and the status numbers', () => {
    const status = { service: { name: 'web', clusterIP: '10.0.0.7', readyEndpoints: 2 } };
    const view = serviceViewOf(
      nginx({ port: 8080, service: { type: 'NodePort', port: 81, nodePort: 30080 } }, status),
    );
    expect(view).toMatchObject({
      portsText: '81:30080 → 8080/TCP',
      name: 'web',
      clusterIP: '10.0.0.7',
      readyEndpoints: 2,
    });
    expect(serviceViewOf(nginx({ service: { type: 'ClusterIP', nodePort: 30080 } }))?.portsText).toBe(
      '80 → 80/TCP',
    );
  });
});

describe('budgetViewOf', () => {
  it('is undefined without spec.disruptionBudget', () => {
    expect(budgetViewOf(nginx({}))).toBeUndefined();
  });

  it('says the budget is not computed while the status has none', () => {
    const view = budgetViewOf(nginx({ disruptionBudget: { maxUnavailable: '25%' } }));
    expect(view).toMatchObject({ rule: 'maxUnavailable: 25%', disruptionsAllowed: undefined });
    expect(view?.sentence).toMatch(/not computed/);
  });

  it('says how many pods may be evicted now, and why none may', () => {
    const spec = { disruptionBudget: { minAvailable: 2 } };
    const status = (allowed: number, healthy: number) => ({
      disruptionBudget: {
        name: 'web',
        disruptionsAllowed: allowed,
        currentHealthy: healthy,
        desiredHealthy: 2,
      },
    });
    const some = budgetViewOf(nginx(spec, status(1, 3)));
    expect(some).toMatchObject({ rule: 'minAvailable: 2', disruptionsAllowed: 1 });
    expect(some?.sentence).toBe('1 pod may be evicted now (3 healthy, at least 2 must stay).');
    expect(budgetViewOf(nginx(spec, status(0, 2)))?.sentence).toMatch(
      /^No pod may be evicted now \(2 healthy/,
    );
  });
});

describe('the TLS port and the Ingress', () => {
  const withAll = nginx({
    service: { port: 8080 },
    tls: { secretName: 'web-tls' },
    ingress: { className: 'nginx', host: 'web.example.com', tls: true },
  });

  it('shows the https port beside http with spec.tls', () => {
    expect(serviceViewOf(withAll)?.portsText).toBe('8080 → 80/TCP, 443 → 443/TCP');
  });

  it('shows the Ingress rule, class, TLS Secret and published addresses', () => {
    expect(ingressViewOf(withAll)).toEqual({
      ruleText: 'web.example.com/ → web:8080',
      className: 'nginx',
      tlsSecret: 'web-tls',
      name: undefined,
      addresses: [],
    });
    const reported: Nginx = { ...withAll, status: { ingress: { name: 'web', addresses: ['10.0.0.1'] } } };
    expect(ingressViewOf(reported)).toMatchObject({ name: 'web', addresses: ['10.0.0.1'] });
    expect(ingressViewOf(nginx({ service: {} }))).toBeUndefined();
  });
});
