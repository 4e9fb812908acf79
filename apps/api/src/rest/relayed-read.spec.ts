import { describe, expect, it } from 'vitest';
import { relayedReadOf } from './relayed-read.js';

const NAMESPACES = '/apis/mycompany.com/v1/namespaces';
const get = (url: string, headers: Record<string, string> = {}) =>
  relayedReadOf({ method: 'GET', url, headers });

describe('relayedReadOf', () => {
  it('takes a plain GET of one Nginx or of a namespace’s Nginxes', () => {
    expect(get(`${NAMESPACES}/team-a/nginxes/web.v2`)).toEqual({ namespace: 'team-a', name: 'web.v2' });
    expect(get(`${NAMESPACES}/team-a/nginxes`)).toEqual({ namespace: 'team-a' });
    expect(
      get(`${NAMESPACES}/team-a/nginxes`, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' }),
    ).toEqual({ namespace: 'team-a' });
  });

  it('leaves every other request to Express’s routes', () => {
    const left = [
      relayedReadOf({ method: 'HEAD', url: `${NAMESPACES}/a/nginxes/web`, headers: {} }),
      relayedReadOf({ method: 'DELETE', url: `${NAMESPACES}/a/nginxes/web`, headers: {} }),
      get(`${NAMESPACES}/a/nginxes/web?resourceVersion=0`), // may be answered from the cache
      get(`${NAMESPACES}/a/nginxes?watch=true`),
      get(`${NAMESPACES}/a/nginxes?`),
      get(`${NAMESPACES}/a/nginxes/web/status`),
      get(`${NAMESPACES}/a/nginxes/web/scale`),
      get(`${NAMESPACES}/a/nginxes/`), // an empty name
      get(`${NAMESPACES}/a/pods/web`),
      get('/apis/mycompany.com/v1/nginxes'), // every namespace: the guard decides who may
      get(`${NAMESPACES}/a%2Fb/nginxes`), // encoded: Express decodes, then refuses
      get(`${NAMESPACES}/../nginxes/web`),
      get(`${NAMESPACES}/A/nginxes/web`), // not a valid namespace: Express answers 400
      get(`${NAMESPACES}/a/nginxes/Web_1`),
      get(`${NAMESPACES}/a/nginxes/web`, { origin: 'https://elsewhere.example' }), // CORS
      get(`/APIS/mycompany.com/v1/namespaces/a/nginxes/web`),
      relayedReadOf({ method: 'GET', url: undefined, headers: {} }),
    ];
    expect(left).toEqual(left.map(() => undefined));
  });
});
