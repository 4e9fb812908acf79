import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { linksOf, messageBody } from './messages.js';
import type { NotificationEvent } from './notification-event.js';
import { signature } from './signature.js';

const paused: NotificationEvent = {
  type: 'canary-paused',
  key: 'uid-1/canary-paused/b/2/1',
  namespace: 'shop',
  name: 'web',
  uid: 'uid-1',
  at: '2026-11-28T10:00:00Z',
  revision: 'b',
  summary: 'Canary of b paused at step 2 (20%), awaiting promotion.',
  labels: {},
};

describe('messages', () => {
  const links = linksOf(paused, 'https://ngx.example.com/');

  it('link to the Nginx page of the web UI and to the promote and abort endpoints', () => {
    expect(links).toEqual({
      page: 'https://ngx.example.com/nginxes/shop/web',
      promote: '/controlplane/v1/namespaces/shop/nginxes/web/promote',
      abort: '/controlplane/v1/namespaces/shop/nginxes/web/abort',
    });
    expect(linksOf(paused, undefined).page).toBeUndefined();
  });

  it('a webhook gets the event as JSON', () => {
    expect(messageBody('webhook', paused, links)).toMatchObject({
      event: 'canary-paused',
      id: paused.key,
      nginx: { namespace: 'shop', name: 'web', uid: 'uid-1' },
      revision: 'b',
      links,
    });
  });

  it('Slack gets text and blocks with the page, promote and abort as buttons', () => {
    const body = messageBody('slack', paused, links) as {
      text: string;
      blocks: { elements?: { url: string }[] }[];
    };
    expect(body.text).toContain('Canary paused, awaiting promotion: shop/web');
    expect(body.blocks[1]!.elements!.map((button) => button.url)).toEqual([
      'https://ngx.example.com/nginxes/shop/web',
      'https://ngx.example.com/nginxes/shop/web#promote',
      'https://ngx.example.com/nginxes/shop/web#abort',
    ]);
  });

  it('Teams gets a MessageCard with the links as OpenUri actions; a completion offers the page only', () => {
    const body = messageBody('teams', { ...paused, type: 'rollout-completed' }, links) as {
      '@type': string;
      potentialAction: { name: string; targets: { uri: string }[] }[];
    };
    expect(body['@type']).toBe('MessageCard');
    expect(body.potentialAction.map((action) => [action.name, action.targets[0]!.uri])).toEqual([
      ['Open Nginx', 'https://ngx.example.com/nginxes/shop/web'],
    ]);
  });
});

describe('signature', () => {
  it('is HMAC-SHA256 over the timestamp and the raw body', () => {
    const expected = createHmac('sha256', 'k').update('1700000000.{"a":1}').digest('hex');
    expect(signature('k', 1_700_000_000, '{"a":1}')).toBe(`sha256=${expected}`);
  });
});
