import { describe, expect, it } from 'vitest';
import { crossSiteRefusal } from './request-origin.js';

const host = 'cp.example:3000';

describe('crossSiteRefusal', () => {
  it('takes a request of this site, or of no page at all', () => {
    expect(crossSiteRefusal({ host, origin: 'https://cp.example:3000' })).toBeUndefined();
    expect(crossSiteRefusal({ host, 'sec-fetch-site': 'same-origin' })).toBeUndefined();
    expect(crossSiteRefusal({ host })).toBeUndefined();
  });

  it('refuses another origin, a null origin, a cross-site or same-site fetch', () => {
    expect(crossSiteRefusal({ host, origin: 'https://evil.example' })).toMatch(/cross-site/);
    expect(crossSiteRefusal({ host, origin: 'https://cp.example:4000' })).toMatch(/cross-site/);
    expect(crossSiteRefusal({ host, origin: 'null' })).toBeDefined();
    expect(crossSiteRefusal({ host, origin: 'not a url' })).toMatch(/not a URL/);
    expect(crossSiteRefusal({ host, 'sec-fetch-site': 'cross-site' })).toBeDefined();
    expect(crossSiteRefusal({ host, 'sec-fetch-site': 'same-site' })).toBeDefined();
  });
});
