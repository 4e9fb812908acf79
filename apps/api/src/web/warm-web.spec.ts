import { describe, expect, it } from 'vitest';
import { warmWeb } from './warm-web.js';

describe('warmWeb', () => {
  it('renders each page once, one after another, and reports what each answered', async () => {
    const seen: string[] = [];
    let inFlight = 0;
    let most = 0;
    const result = await warmWeb(
      async (req, res) => {
        inFlight++;
        most = Math.max(most, inFlight);
        seen.push(req.url!);
        // Kept: a render that takes a while is the scenario (the window in which a warmer that does not wait for
        // one page before the next would send another); no assertion waits on it, and nothing here reads a clock.
        await new Promise((resolve) => setTimeout(resolve, 5));
        inFlight--;
        if (req.url === '/broken') throw new Error('render failed');
        res.statusCode = req.url === '/missing' ? 404 : 200;
        res.end('<html></html>');
      },
      ['/', '/missing', '/broken'],
    );
    expect(seen).toEqual(['/', '/missing', '/broken']);
    expect(most).toBe(1);
    expect(result.pages).toEqual([
      { path: '/', status: 200 },
      { path: '/missing', status: 404 },
      { path: '/broken', status: 500 },
    ]);
    expect(result.ms).toBeGreaterThan(0);
  });
});
