import { parseDocument, LineCounter, type Node } from 'yaml';
import { z } from 'zod';
import { NOTIFICATION_EVENTS, type NotificationEvent } from './notification-event.js';

export const RECEIVER_TYPES = ['webhook', 'slack', 'teams'] as const;
export type ReceiverType = (typeof RECEIVER_TYPES)[number];

const name = z.string().regex(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, 'must be a DNS label (a-z, 0-9, -)');
const httpUrl = z.string().refine((value) => {
  if (!URL.canParse(value)) return false;
  const { protocol, hostname } = new URL(value);
  return (protocol === 'http:' || protocol === 'https:') && hostname !== '';
}, 'must be an http(s) URL');

const ReceiverShape = z
  .strictObject({
    name,
    type: z.enum(RECEIVER_TYPES),
    url: httpUrl,
    /** The HMAC key (webhook only): the value of an environment variable, or a file's content (trimmed). */
    secretEnv: z.string().min(1).optional(),
    secretFile: z.string().min(1).optional(),
    /** Per-attempt deadline, in seconds. */
    timeoutSeconds: z.number().positive().max(60).default(5),
    /** Attempts before the delivery is given up (the first included). */
    attempts: z.number().int().min(1).max(10).default(5),
  })
  .refine(
    (receiver) => !(receiver.secretEnv && receiver.secretFile),
    'secretEnv and secretFile exclude each other',
  );

const RouteShape = z.strictObject({
  events: z.array(z.enum(NOTIFICATION_EVENTS)).min(1),
  /** Only Nginxes of these namespaces (all when absent). */
  namespaces: z.array(z.string().min(1)).optional(),
  /** Only Nginxes carrying every one of these labels. */
  selector: z.strictObject({ matchLabels: z.record(z.string(), z.string()) }).optional(),
  receivers: z.array(name).min(1),
});

const RoutingShape = z.strictObject({
  /** The web UI's public address, the base of the links in messages (e.g. https://nginx.example.com). */
  uiBaseUrl: httpUrl.optional(),
  receivers: z.array(ReceiverShape).min(1),
  routes: z.array(RouteShape).min(1),
});

export type ReceiverSpec = z.output<typeof ReceiverShape>;
export type Route = z.output<typeof RouteShape>;
/** A routing file accepted whole: every route names receivers that exist, every event is known. */
export type Routing = z.output<typeof RoutingShape>;

/** Why a routing file was refused, naming the field and its line. */
export class RoutingError extends Error {}

/**
 * Parses a routing file (YAML, or JSON, which is YAML too). An unknown event, a malformed URL, an unknown field or
 * a route naming a receiver that does not exist refuses the whole file: the message names the field and its line.
 */
export function parseRouting(text: string, source = 'routing file'): Routing {
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  if (document.errors.length > 0) {
    const [error] = document.errors;
    throw new RoutingError(`${source}: line ${lines.linePos(error!.pos[0]).line}: ${error!.message}`);
  }
  const lineOf = (path: readonly PropertyKey[]) => {
    const node = document.getIn(path, true) as Node | undefined;
    const offset = node?.range?.[0];
    return offset === undefined ? undefined : lines.linePos(offset).line;
  };
  const parsed = RoutingShape.safeParse(document.toJS());
  if (!parsed.success) {
    const [issue] = parsed.error.issues;
    const path = issue!.path.filter((part): part is string | number => typeof part !== 'symbol');
    throw new RoutingError(refusal(source, path, lineOf(path), issue!.message));
  }
  const routing = parsed.data;
  const names = new Set<string>();
  for (const [index, receiver] of routing.receivers.entries()) {
    const path = ['receivers', index, 'name'];
    if (names.has(receiver.name))
      throw new RoutingError(refusal(source, path, lineOf(path), `duplicate receiver ${receiver.name}`));
    names.add(receiver.name);
  }
  for (const [index, route] of routing.routes.entries())
    for (const [at, receiver] of route.receivers.entries()) {
      const path = ['routes', index, 'receivers', at];
      if (!names.has(receiver))
        throw new RoutingError(refusal(source, path, lineOf(path), `no receiver is named ${receiver}`));
    }
  return routing;
}

function refusal(
  source: string,
  path: (string | number)[],
  line: number | undefined,
  message: string,
): string {
  const field = path.reduce<string>(
    (text, part) => (typeof part === 'number' ? `${text}[${part}]` : text ? `${text}.${part}` : part),
    '',
  );
  return `${source}: ${line ? `line ${line}: ` : ''}${field || '(top level)'}: ${message}`;
}

/** The receivers (by name, once each) that `event` goes to under `routing`. */
export function receiversFor(routing: Routing, event: NotificationEvent): ReceiverSpec[] {
  const wanted = new Set<string>();
  for (const route of routing.routes) {
    if (!route.events.includes(event.type)) continue;
    if (route.namespaces && !route.namespaces.includes(event.namespace)) continue;
    const labels = route.selector?.matchLabels ?? {};
    if (Object.entries(labels).some(([key, value]) => event.labels[key] !== value)) continue;
    for (const receiver of route.receivers) wanted.add(receiver);
  }
  return routing.receivers.filter((receiver) => wanted.has(receiver.name));
}
