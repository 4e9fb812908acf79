import { LIVE_EVENTS, type LiveChange } from '@ngx/nginx-api';
import { Decoder, Encoder, PacketType, type Packet } from 'socket.io-parser';

/**
 * JSON text of the objects changes carry, made once per object: the gateway hands the same object to every
 * client that watches it (a frozen Nginx from the cache, or a pod's view made once per change), so a change
 * fanned out to a hundred clients is stringified once, not a hundred times. Held weakly: an object's text goes
 * when the object does.
 */
const objectJson = new WeakMap<object, string>();

function jsonOf(object: object): string {
  let text = objectJson.get(object);
  if (text === undefined) {
    text = JSON.stringify(object);
    objectJson.set(object, text);
  }
  return text;
}

/** Each field of a change as JSON text; naming every key of LiveChange keeps this in step with the type. */
const CHANGE_FIELDS: { [K in keyof LiveChange]: (change: LiveChange) => string } = {
  subscription: (change) => JSON.stringify(change.subscription),
  kind: (change) => JSON.stringify(change.kind),
  type: (change) => JSON.stringify(change.type),
  object: (change) => jsonOf(change.object),
};
const FIELD_ENTRIES = Object.entries(CHANGE_FIELDS).map(
  ([key, text]) => [JSON.stringify(key), text] as const,
);

/** The packet is a `changes` event to the main namespace, as LiveSession's emit makes it. */
function isChangesEvent(packet: Packet): packet is Packet & { data: [string, LiveChange[]] } {
  const data: unknown = packet.data;
  return (
    packet.type === PacketType.EVENT &&
    packet.nsp === '/' &&
    packet.id === undefined &&
    Array.isArray(data) &&
    data.length === 2 &&
    data[0] === LIVE_EVENTS.changes &&
    Array.isArray(data[1])
  );
}

/**
 * socket.io's packet encoder with a cheaper path for `changes` events: the same text the default encoder writes
 * (`2["changes",[…]]`, read by any socket.io client), built from each object's JSON made once (objectJson), and
 * without the default's walk of every object in search of binary data (changes carry JSON from the API server,
 * never binary). Every other packet is encoded by the default encoder.
 */
export class ChangeEncoder extends Encoder {
  override encode(packet: Packet): (string | Buffer)[] {
    if (!isChangesEvent(packet)) return super.encode(packet) as (string | Buffer)[];
    const changes = packet.data[1].map(
      (change: LiveChange) => `{${FIELD_ENTRIES.map(([key, text]) => `${key}:${text(change)}`).join(',')}}`,
    );
    return [`${PacketType.EVENT}[${JSON.stringify(LIVE_EVENTS.changes)},[${changes.join(',')}]]`];
  }
}

/** The parser the live gateway's socket.io server uses (its `parser` option): ChangeEncoder, the default decoder. */
export const liveParser = { Encoder: ChangeEncoder, Decoder };
