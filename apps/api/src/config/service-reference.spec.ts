import { describe, expect, it } from 'vitest';
import { serviceReference } from './service-reference.js';

describe('serviceReference', () => {
  it('reads namespace/name, with port 443 unless one is given', () => {
    expect(serviceReference('ns/svc')).toEqual({ namespace: 'ns', name: 'svc', port: 443 });
    expect(serviceReference('ns/svc:8443')).toEqual({ namespace: 'ns', name: 'svc', port: 8443 });
  });

  it('says what is wrong, with the name’s problem when it has one', () => {
    for (const value of ['svc', 'ns/', 'ns/svc:0', 'ns/svc:99999', 'ns/svc/x'])
      expect(() => serviceReference(value), value).toThrow(
        `must be namespace/name or namespace/name:port (got "${value}")`,
      );
    expect(() => serviceReference('NS/svc')).toThrow(/^must be .* \(got "NS\/svc"\): .+/);
  });
});
