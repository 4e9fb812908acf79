import { describe, expect, it } from 'vitest';
import { ADMISSION_PATH, webhookConfiguration, webhookConfigurationName } from './webhook-configuration.js';

const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

describe('webhookConfiguration', () => {
  it('sends only CREATE and UPDATE of nginxes, never blocking on failure, side-effect free', () => {
    const config = webhookConfiguration({ endpoint: { url: 'https://127.0.0.1:3000/' }, caBundlePem: PEM });
    expect(config.metadata.name).toBe('nginxes.mycompany.com');
    const [webhook] = config.webhooks;
    expect(webhook).toMatchObject({
      name: 'nginxes.mycompany.com',
      rules: [
        {
          apiGroups: ['mycompany.com'],
          apiVersions: ['v1'],
          operations: ['CREATE', 'UPDATE'],
          resources: ['nginxes'],
          scope: 'Namespaced',
        },
      ],
      failurePolicy: 'Ignore',
      matchPolicy: 'Equivalent',
      sideEffects: 'None',
      timeoutSeconds: 5,
      admissionReviewVersions: ['v1'],
    });
    expect(webhook!.clientConfig).toEqual({
      url: `https://127.0.0.1:3000${ADMISSION_PATH}`,
      caBundle: Buffer.from(PEM).toString('base64'),
    });
    expect(webhook).not.toHaveProperty('namespaceSelector');
  });

  it("calls the app's Service in a cluster", () => {
    const service = { namespace: 'nginx-control-plane', name: 'nginx-control-plane', port: 443 };
    const config = webhookConfiguration({ endpoint: { service }, caBundlePem: PEM });
    expect(config.webhooks[0]!.clientConfig).toEqual({
      service: { ...service, path: ADMISSION_PATH },
      caBundle: Buffer.from(PEM).toString('base64'),
    });
  });

  it('judges only its namespace under a name of its own with WATCH_NAMESPACE', () => {
    expect(webhookConfigurationName(['team-a'])).toBe('team-a.nginxes.mycompany.com');
    const config = webhookConfiguration({
      endpoint: { url: 'https://127.0.0.1:1' },
      caBundlePem: PEM,
      namespaces: ['team-a'],
    });
    expect(config.metadata.name).toBe('team-a.nginxes.mycompany.com');
    expect(config.webhooks[0]).toMatchObject({
      name: 'team-a.nginxes.mycompany.com',
      namespaceSelector: {
        matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: ['team-a'] }],
      },
    });
  });

  it('judges several namespaces under one name of their own', () => {
    const config = webhookConfiguration({
      endpoint: { url: 'https://127.0.0.1:1' },
      caBundlePem: PEM,
      namespaces: ['team-a', 'team-b'],
    });
    expect(config.metadata.name).toBe('team-a.team-b.nginxes.mycompany.com');
    expect(config.webhooks[0]?.namespaceSelector?.matchExpressions[0]?.values).toEqual(['team-a', 'team-b']);
    const many = Array.from({ length: 20 }, (_, i) => `team-with-a-long-name-${i}`);
    expect(webhookConfigurationName(many)).toMatch(/^[0-9a-f]{16}\.nginxes\.mycompany\.com$/);
    expect(webhookConfigurationName(many)).toBe(webhookConfigurationName([...many]));
  });
});
