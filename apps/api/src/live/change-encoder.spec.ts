import { LIVE_EVENTS, type LiveChange, type LivePod, type Nginx } from '@ngx/nginx-api';
import { Decoder, Encoder, PacketType, type Packet } from 'socket.io-parser';
import { describe, expect, it, vi } from 'vitest';
import { ChangeEncoder } from './change-encoder.js';

const nginx = Object.freeze({
  apiVersion: 'mycompany.com/v1',
  kind: 'Nginx',
  metadata: {
    name: 'web',
    namespace: 'default',
    annotations: { note: 'quotes " and \\ and \u2028 and ünïcode' },
  },
  spec: { replicas: 3 },
}) as unknown as Nginx;

const pod: LivePod = {
  name: 'web-abcde',
  uid: 'u-1',
  phase: 'Running',
  ready: true,
  node: null,
  restarts: 0,
} as LivePod;

const changesPacket = (changes: LiveChange[]): Packet => ({
  type: PacketType.EVENT,
  nsp: '/',
  data: [LIVE_EVENTS.changes, changes],
});

function decoded(encoded: unknown[]): Packet {
  const decoder = new Decoder();
  let packet: Packet | undefined;
  decoder.on('decoded', (value: Packet) => (packet = value));
  for (const part of encoded) decoder.add(part as string);
  return packet!;
}

describe('ChangeEncoder', () => {
  it('writes a changes event exactly as the default encoder does', () => {
    const packet = changesPacket([
      { subscription: 's-1', kind: 'nginx', type: 'MODIFIED', object: nginx },
      { subscription: 's-2', kind: 'pod', type: 'ADDED', object: pod },
      { subscription: 's-2', kind: 'nginx', type: 'DELETED', object: nginx },
    ]);
    const ours = new ChangeEncoder().encode(packet);
    expect(ours).toEqual(new Encoder().encode(packet));
    expect(decoded(ours)).toEqual(packet);
  });

  it('leaves every other packet to the default encoder', () => {
    const ack: Packet = { type: PacketType.ACK, nsp: '/', id: 7, data: [{ ok: true, subscription: 's-1' }] };
    const other: Packet = {
      type: PacketType.EVENT,
      nsp: '/',
      data: [LIVE_EVENTS.resync, { subscription: 's' }],
    };
    const elsewhere = { ...changesPacket([]), nsp: '/admin' };
    const binary: Packet = { type: PacketType.EVENT, nsp: '/', data: ['blob', Buffer.from('ab')] };
    for (const packet of [ack, other, elsewhere, binary])
      expect(new ChangeEncoder().encode(packet)).toEqual(new Encoder().encode(packet));
  });

  it('stringifies an object once, however many clients its change goes to', () => {
    const view = { ...pod, uid: 'u-once' };
    const stringify = vi.spyOn(JSON, 'stringify');
    try {
      const encoder = new ChangeEncoder();
      for (let client = 0; client < 100; client++)
        encoder.encode(
          changesPacket([{ subscription: `s-${client}`, kind: 'pod', type: 'MODIFIED', object: view }]),
        );
      expect(stringify.mock.calls.filter(([value]) => value === view)).toHaveLength(1);
    } finally {
      stringify.mockRestore();
    }
  });
});
