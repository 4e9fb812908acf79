import type { NotificationEvent, NotificationEventType } from './notification-event.js';
import type { ReceiverType } from './routing.js';

/** Where a message points: the Nginx's page in the web UI (its canary's promote and abort are there). */
export interface NotificationLinks {
  page?: string;
  /** The REST endpoints a client POSTs to promote or abort the canary (relative to the API's address). */
  promote: string;
  abort: string;
}

const TITLES: Readonly<Record<NotificationEventType, string>> = {
  'rollout-started': 'Rollout started',
  'rollout-completed': 'Rollout completed',
  'rollout-failed': 'Rollout failed',
  'rolled-back': 'Rolled back',
  'canary-paused': 'Canary paused, awaiting promotion',
  'analysis-failed': 'Analysis failed',
  'progress-deadline-exceeded': 'Progress deadline exceeded',
  'nginx-deleted': 'Nginx deleted',
};

/** Events that leave a canary waiting for a person: their messages offer promote and abort. */
const ACTIONABLE: ReadonlySet<NotificationEventType> = new Set([
  'canary-paused',
  'analysis-failed',
  'progress-deadline-exceeded',
]);

/** The links of `event`'s Nginx, under `uiBaseUrl` (no page link without one). */
export function linksOf(event: NotificationEvent, uiBaseUrl: string | undefined): NotificationLinks {
  const path = `${encodeURIComponent(event.namespace)}/nginxes/${encodeURIComponent(event.name)}`;
  const controlplane = `/controlplane/v1/namespaces/${path}`;
  return {
    ...(uiBaseUrl
      ? {
          page: `${uiBaseUrl.replace(/\/+$/, '')}/nginxes/${encodeURIComponent(event.namespace)}/${encodeURIComponent(event.name)}`,
        }
      : {}),
    promote: `${controlplane}/promote`,
    abort: `${controlplane}/abort`,
  };
}

/** The JSON body a generic webhook receives. */
export function webhookBody(event: NotificationEvent, links: NotificationLinks) {
  return {
    apiVersion: 'notifications.mycompany.com/v1',
    event: event.type,
    id: event.key,
    at: event.at,
    nginx: { namespace: event.namespace, name: event.name, uid: event.uid },
    ...(event.revision ? { revision: event.revision } : {}),
    summary: event.summary,
    links,
  };
}

/** A Slack incoming webhook's message: text for notifications, blocks with the links as buttons. */
export function slackBody(event: NotificationEvent, links: NotificationLinks) {
  const title = `${TITLES[event.type]}: ${event.namespace}/${event.name}`;
  const buttons = pageActions(event, links).map(([text, url]) => ({
    type: 'button',
    text: { type: 'plain_text', text },
    url,
  }));
  return {
    text: `${title}. ${event.summary}`,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: `*${title}*\n${event.summary}` } },
      ...(buttons.length > 0 ? [{ type: 'actions', elements: buttons }] : []),
    ],
  };
}

/** A Teams incoming webhook's message (a MessageCard), the links as OpenUri actions. */
export function teamsBody(event: NotificationEvent, links: NotificationLinks) {
  const title = `${TITLES[event.type]}: ${event.namespace}/${event.name}`;
  return {
    '@type': 'MessageCard',
    '@context': 'https://schema.org/extensions',
    summary: title,
    themeColor: event.type === 'rollout-completed' || event.type === 'rollout-started' ? '2EB67D' : 'E01E5A',
    title,
    text: event.summary,
    potentialAction: pageActions(event, links).map(([name, uri]) => ({
      '@type': 'OpenUri',
      name,
      targets: [{ os: 'default', uri }],
    })),
  };
}

/**
 * The chat links: the Nginx's page, and for a canary waiting on a person its promote and abort, which are
 * buttons on that page (a chat link opens a page; the REST endpoints are POSTs).
 */
function pageActions(event: NotificationEvent, links: NotificationLinks): [string, string][] {
  if (!links.page) return [];
  const actions: [string, string][] = [['Open Nginx', links.page]];
  if (ACTIONABLE.has(event.type))
    actions.push(['Promote', `${links.page}#promote`], ['Abort', `${links.page}#abort`]);
  return actions;
}

/** The body `type` of receiver gets for `event`. */
export function messageBody(type: ReceiverType, event: NotificationEvent, links: NotificationLinks): unknown {
  if (type === 'slack') return slackBody(event, links);
  if (type === 'teams') return teamsBody(event, links);
  return webhookBody(event, links);
}
