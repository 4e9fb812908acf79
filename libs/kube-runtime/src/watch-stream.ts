import { StringDecoder } from 'node:string_decoder';
import type { Readable } from 'node:stream';
import type { KubeStatus } from './api-error.js';
import type { KubeObject } from './object.js';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export type WatchEvent<T> =
  { type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK'; object: T } | { type: 'ERROR'; object: KubeStatus };

/** The stream sent something that is not a well-formed watch event; the watch must restart. */
export class MalformedWatchEvent extends Error {
  override name = 'MalformedWatchEvent';
}

const TYPES = new Set<string>(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR']);

/**
 * Parses one line of a watch stream and checks it: a known type, an object, and for object events the expected
 * kind, a name and a resourceVersion. Anything else throws MalformedWatchEvent, never a half-read event.
 */
export function parseWatchLine<T extends KubeObject>(line: string, expectedKind?: string): WatchEvent<T> {
  let event: { type?: unknown; object?: unknown };
  try {
    event = JSON.parse(line);
  } catch {
    throw new MalformedWatchEvent(`not JSON: ${line.slice(0, 120)}`);
  }
  if (!event || typeof event !== 'object')
    throw new MalformedWatchEvent(`not an object: ${line.slice(0, 120)}`);
  if (typeof event.type !== 'string' || !TYPES.has(event.type)) {
    throw new MalformedWatchEvent(`unknown event type ${JSON.stringify(event.type)}`);
  }
  const object = event.object as (KubeObject & KubeStatus) | undefined;
  if (!object || typeof object !== 'object')
    throw new MalformedWatchEvent(`${event.type} event without an object`);
  if (event.type === 'ERROR') return { type: 'ERROR', object };
  if (!object.metadata?.resourceVersion)
    throw new MalformedWatchEvent(`${event.type} event without a resourceVersion`);
  if (event.type === 'BOOKMARK') return { type: 'BOOKMARK', object: object as T };
  if (expectedKind && object.kind !== expectedKind) {
    throw new MalformedWatchEvent(
      `${event.type} event for kind ${object.kind ?? 'none'}, expected ${expectedKind}`,
    );
  }
  if (!object.metadata?.name)
    throw new MalformedWatchEvent(`${event.type} event for an object without a name`);
  return { type: event.type as 'ADDED' | 'MODIFIED' | 'DELETED', object: object as T };
}

/**
 * Yields the events of a watch response, one per line. Ends when the server closes the stream; throws
 * MalformedWatchEvent for a bad line or for a stream that stops in the middle of one.
 */
export async function* readWatchEvents<T extends KubeObject>(
  stream: Readable,
  expectedKind?: string,
): AsyncGenerator<WatchEvent<T>> {
  const decoder = new StringDecoder('utf8');
  let pending = '';
  for await (const chunk of stream) {
    pending += typeof chunk === 'string' ? chunk : decoder.write(chunk as Buffer);
    let newline = pending.indexOf('\n');
    while (newline >= 0) {
      const line = pending.slice(0, newline).trim();
      pending = pending.slice(newline + 1);
      if (line) yield parseWatchLine<T>(line, expectedKind);
      newline = pending.indexOf('\n');
    }
  }
  pending += decoder.end();
  if (pending.trim()) {
    // The API server ends every event with a newline; text after the last one is an object cut short.
    throw new MalformedWatchEvent(`stream closed in the middle of an event: ${pending.slice(0, 120)}`);
  }
}
