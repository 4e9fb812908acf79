import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { MalformedWatchEvent, parseWatchLine, readWatchEvents } from './watch-stream.js';

const pod = (name: string, rv: string) => ({
  kind: 'Pod',
  apiVersion: 'v1',
  metadata: { name, namespace: 'd', resourceVersion: rv },
});
const line = (type: string, object: unknown) => `${JSON.stringify({ type, object })}\n`;

async function collect(chunks: string[], kind = 'Pod') {
  const events = [];
  for await (const event of readWatchEvents(Readable.from(chunks.map((c) => Buffer.from(c))), kind))
    events.push(event);
  return events;
}

describe('watch stream parsing', () => {
  it('reads events split across chunks in any way', async () => {
    const text =
      line('ADDED', pod('a', '1')) +
      line('MODIFIED', pod('a', '2')) +
      line('BOOKMARK', { kind: 'Pod', metadata: { resourceVersion: '3' } });
    const chunks = [text.slice(0, 7), text.slice(7, 60), text.slice(60)];
    const events = await collect(chunks);
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'BOOKMARK']);
  });

  it('passes ERROR events through with their Status', async () => {
    const events = await collect([
      line('ERROR', { kind: 'Status', code: 410, reason: 'Expired', message: 'too old' }),
    ]);
    expect(events).toEqual([
      { type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old' } },
    ]);
  });

  it('decodes multi-byte characters split between chunks', async () => {
    const text = line('ADDED', {
      ...pod('a', '1'),
      metadata: { ...pod('a', '1').metadata, labels: { team: 'café' } },
    });
    const bytes = Buffer.from(text);
    const at = bytes.indexOf(Buffer.from('é')) + 1; // inside the two-byte é
    const events = [];
    for await (const event of readWatchEvents(
      Readable.from([bytes.subarray(0, at), bytes.subarray(at)]),
      'Pod',
    ))
      events.push(event);
    expect((events[0]!.object as { metadata: { labels: { team: string } } }).metadata.labels.team).toBe(
      'café',
    );
  });

  it.each([
    ['a malformed line', '{"type":"ADDED","object":{'],
    ['an unknown event type', JSON.stringify({ type: 'RENAMED', object: pod('a', '1') })],
    [
      'an object of the wrong kind',
      JSON.stringify({ type: 'ADDED', object: { ...pod('a', '1'), kind: 'Service' } }),
    ],
    [
      'an object without a name',
      JSON.stringify({ type: 'ADDED', object: { kind: 'Pod', metadata: { resourceVersion: '1' } } }),
    ],
    [
      'an event without a resourceVersion',
      JSON.stringify({ type: 'MODIFIED', object: { kind: 'Pod', metadata: { name: 'a' } } }),
    ],
    ['an event without an object', JSON.stringify({ type: 'DELETED' })],
    ['a JSON value that is not an event', '42'],
  ])('rejects %s', (_what, text) => {
    expect(() => parseWatchLine(text, 'Pod')).toThrow(MalformedWatchEvent);
  });

  it('yields the good events before a bad one, then throws', async () => {
    const seen: string[] = [];
    const reading = (async () => {
      for await (const event of readWatchEvents(
        Readable.from([line('ADDED', pod('a', '1')), 'not json\n', line('ADDED', pod('b', '2'))]),
        'Pod',
      )) {
        seen.push(event.type);
      }
    })();
    await expect(reading).rejects.toThrow(MalformedWatchEvent);
    expect(seen).toEqual(['ADDED']);
  });

  it('throws when the stream closes in the middle of an event', async () => {
    const cut = line('ADDED', pod('b', '2')).slice(0, 30);
    await expect(collect([line('ADDED', pod('a', '1')), cut])).rejects.toThrow(
      /closed in the middle of an event/,
    );
  });
});
