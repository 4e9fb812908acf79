import type { ServerHttp2Stream } from 'node:http2';
import { describe, expect, it, vi } from 'vitest';
import { http2Bridge } from './http2-bridge.js';

describe('http2Bridge', () => {
  it('answers 400 to a stream HTTP/1.1 cannot carry, and hands nothing to the app', () => {
    const hand = vi.fn();
    const stream = { respond: vi.fn(), end: vi.fn(), on: vi.fn(), session: undefined };
    http2Bridge(hand).emit('stream', stream as unknown as ServerHttp2Stream, {
      ':method': 'GE T',
      ':path': '/apis',
    });
    expect(stream.respond).toHaveBeenCalledWith({ ':status': 400 });
    expect(stream.end).toHaveBeenCalled();
    expect(hand).not.toHaveBeenCalled();
  });
});
