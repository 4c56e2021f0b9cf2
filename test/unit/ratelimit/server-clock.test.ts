// The margin after a reset, from the server's Date headers (src/ratelimit/server-clock.ts, issue #18).
import { describe, expect, it } from 'vitest';
import { FALLBACK_MARGIN_MS, ServerClock } from '../../../src/ratelimit/server-clock.js';

const T = Date.UTC(2030, 0, 1, 12, 0, 0); // a whole second
const httpDate = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toUTCString();

/** One answer from a server whose clock is ours + offset, generated `rtt / 2` after sending. */
function answer(c: ServerClock, sentAt: number, rtt: number, offset: number) {
  c.observe(httpDate(sentAt + rtt / 2 + offset), sentAt, sentAt + rtt);
}

describe('ServerClock', () => {
  it('without a Date header: the fallback margin', () => {
    const c = new ServerClock();
    expect(c.marginMs).toBe(FALLBACK_MARGIN_MS);
    c.observe(undefined, T, T + 5);
    c.observe('not a date', T, T + 5);
    expect(c.marginMs).toBe(FALLBACK_MARGIN_MS);
  });

  it('clocks in step: once an answer follows a tick, about one round trip', () => {
    const c = new ServerClock();
    answer(c, T + 400, 4, 0);
    // One answer in the middle of a second proves little: the old assumption caps it.
    expect(c.marginMs).toBe(FALLBACK_MARGIN_MS);
    // An answer generated 2 ms after the server's clock ticked.
    answer(c, T + 1000, 4, 0);
    expect(c.marginMs).toBeLessThanOrEqual(4);
    expect(c.marginMs).toBeGreaterThanOrEqual(2);
  });

  it('a server clock behind ours: the margin it proves, however long', () => {
    const c = new ServerClock();
    for (let t = T; t < T + 3000; t += 100) answer(c, t, 4, -1700);
    // Requests must leave 1.7 s after our reading of the reset (plus the time to the tick seen).
    expect(c.marginMs).toBeGreaterThanOrEqual(1700);
    expect(c.marginMs).toBeLessThanOrEqual(1710);
    // Every request then reaches the server at or after the reset: sent at reset + margin (ours),
    // it arrives when the server reads reset + margin - 1700 >= reset.
  });

  it('a server clock ahead of ours: never sent before our reading of the reset', () => {
    const c = new ServerClock();
    for (let t = T; t < T + 3000; t += 100) answer(c, t, 4, 2300);
    expect(c.marginMs).toBe(0);
  });

  it('a clock that is set anew (bounds that contradict the earlier ones) starts the estimate again', () => {
    const c = new ServerClock();
    for (let t = T; t < T + 2000; t += 100) answer(c, t, 4, 0);
    expect(c.marginMs).toBeLessThanOrEqual(4);
    for (let t = T + 2000; t < T + 5000; t += 100) answer(c, t, 4, -3000);
    expect(c.marginMs).toBeGreaterThanOrEqual(3000);
  });
});
