import { describe, expect, it } from 'vitest';
import { routeAccess, type RouteRequest } from './route-access.js';

const route = (fields: Partial<RouteRequest>): RouteRequest => ({
  method: 'GET',
  source: 'path',
  namespace: undefined,
  name: undefined,
  subresource: undefined,
  watch: false,
  handlerAuthorizes: false,
  ...fields,
});

describe('routeAccess', () => {
  it('asks list or watch for collections, cluster-wide without a namespace', () => {
    expect(routeAccess(route({}))).toEqual({ verb: 'list' });
    expect(routeAccess(route({ namespace: 'a' }))).toEqual({ verb: 'list', namespace: 'a' });
    expect(routeAccess(route({ namespace: 'a', watch: true }))).toEqual({ verb: 'watch', namespace: 'a' });
  });

  it('asks get on the Nginx for reads of one, and of its subresources and views', () => {
    expect(routeAccess(route({ namespace: 'a', name: 'web' }))).toEqual({
      verb: 'get',
      namespace: 'a',
      name: 'web',
    });
    expect(routeAccess(route({ namespace: 'a', name: 'web', subresource: 'scale' }))).toEqual({
      verb: 'get',
      namespace: 'a',
      name: 'web',
      subresource: 'scale',
    });
    // …/timeline?watch=true is still a read of one Nginx
    expect(routeAccess(route({ namespace: 'a', name: 'web', watch: true }))?.verb).toBe('get');
  });

  it('asks list in the namespace for an audit list, cluster-wide for all of the audit', () => {
    expect(routeAccess(route({ source: 'query', namespace: 'team-a' }))).toEqual({
      verb: 'list',
      namespace: 'team-a',
    });
    expect(routeAccess(route({ source: 'query' }))).toEqual({ verb: 'list' });
  });

  it('asks nothing where the handler asks itself, or for routes about no namespace', () => {
    expect(routeAccess(route({ method: 'PATCH', namespace: 'a', name: 'w', handlerAuthorizes: true }))).toBe(
      undefined,
    );
    expect(routeAccess(route({ source: undefined }))).toBeUndefined();
    expect(routeAccess(route({ method: 'POST', source: undefined }))).toBeUndefined();
  });

  it('maps any other write by its method, as kube-apiserver does', () => {
    expect(routeAccess(route({ method: 'POST', namespace: 'a' }))?.verb).toBe('create');
    expect(routeAccess(route({ method: 'PUT', namespace: 'a', name: 'w' }))?.verb).toBe('update');
    expect(routeAccess(route({ method: 'DELETE', namespace: 'a', name: 'w' }))?.verb).toBe('delete');
    expect(routeAccess(route({ method: 'DELETE', namespace: 'a' }))?.verb).toBe('deletecollection');
  });
});
