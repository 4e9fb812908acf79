import { describe, expect, it } from 'vitest';
import { ProgressPacing } from './progress-pacing.js';

function pacing(intervalMs = 1000, perSecond = 10) {
  const clock = { now: 0 };
  return { pacing: new ProgressPacing({ intervalMs, perSecond, now: () => clock.now }), clock };
}

describe('ProgressPacing', () => {
  it('lets the first progress write of an Nginx go at once, then one per interval after its last action', () => {
    const { pacing: p, clock } = pacing();
    expect(p.wait('a')).toBe(0);
    p.acted('a'); // written
    clock.now = 300;
    expect(p.wait('a')).toBe(700);
    p.acted('a'); // pods created: counts from here
    clock.now = 900;
    expect(p.wait('a')).toBe(400);
    clock.now = 1300;
    expect(p.wait('a')).toBe(0);
  });

  it('shares the progress writes a second between the Nginxes making progress at once', () => {
    const { pacing: p, clock } = pacing(1000, 10);
    for (let i = 0; i < 40; i++) p.acted(`n${i}`);
    for (let i = 0; i < 40; i++) p.wait(`n${i}`);
    // 40 at 10 a second: each may report every 4 s.
    expect(p.wait('n0')).toBe(4000);
    clock.now = 3000;
    expect(p.wait('n0')).toBe(1000);
    // Ten of them settle: 30 left, every 3 s.
    for (let i = 0; i < 10; i++) p.settled(`n${i}`);
    expect(p.wait('n39')).toBe(0);
    p.acted('n39');
    expect(p.wait('n39')).toBe(3000);
  });

  it('keeps the interval when few make progress, and stops counting those not heard of for 10 s', () => {
    const { pacing: p, clock } = pacing(1000, 10);
    for (let i = 0; i < 30; i++) p.wait(`n${i}`);
    p.acted('a');
    expect(p.wait('a')).toBe(3100); // 31 making progress
    clock.now = 11_000;
    p.acted('a');
    expect(p.wait('a')).toBe(1000); // the 30 others went quiet: only itself
  });

  it('holds a progress write while its counts keep moving, up to 5 intervals, and not after they hold still', () => {
    const { pacing: p, clock } = pacing(1000, 10);
    p.acted('a'); // the burst ended at 0
    expect(p.wait('a', '10/0')).toBe(1000);
    clock.now = 800;
    expect(p.wait('a', '10/3')).toBe(1000); // moved at 800: still until 1800
    clock.now = 1500;
    expect(p.wait('a', '10/3')).toBe(300);
    clock.now = 1700;
    expect(p.wait('a', '10/7')).toBe(1000); // moved again
    // Moving every 900 ms from here: held back no later than 5 s after the burst.
    for (let at = 2600, ready = 8; at < 5000; at += 900, ready++) {
      clock.now = at;
      expect(p.wait('a', `10/${ready}`)).toBe(Math.min(1000, 5000 - at));
    }
    clock.now = 5000;
    expect(p.wait('a', '10/9')).toBe(0);
    p.acted('a'); // written
    clock.now = 5200;
    expect(p.wait('a', '10/9')).toBe(800); // the same counts, after a write: one interval from it
  });

  it('does not hold a write past the share of the progress writes', () => {
    const { pacing: p, clock } = pacing(1000, 10);
    for (let i = 0; i < 80; i++) p.acted(`n${i}`);
    for (let i = 0; i < 80; i++) p.wait(`n${i}`, '0');
    clock.now = 7900;
    expect(p.wait('n0', '1')).toBe(100); // every 8 s each; moving at 7.9 s does not push it past that
  });

  it('forgets an Nginx that is gone', () => {
    const { pacing: p } = pacing();
    p.acted('a');
    expect(p.wait('a')).toBe(1000);
    p.forget('a');
    expect(p.wait('a')).toBe(0);
  });

  it('does not pace with an interval of 0', () => {
    const { pacing: p } = pacing(0);
    p.acted('a');
    expect(p.wait('a')).toBe(0);
  });
});
