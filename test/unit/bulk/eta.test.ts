// The seeding ETA (issue #34, item 2) on a fake clock: a run of 200 records at 60 per 5 s on a grid of
// whole windows, simulated request by request; at every moment the ETA shown is within 40 % of the time
// actually left once the window's length is known, and unknown ("?") before.
import { describe, expect, it } from 'vitest';
import { estimate, WindowLength } from '../../../src/bulk/progress.js';
import type { Quota } from '../../../src/ratelimit/quota.js';

const WINDOW = 5000;
const LIMIT = 60;
const SEND_MS = 20;

/** Each moment of the run: the time, records done, the last quota seen. */
function simulate(total: number, start: number) {
  const moments: { at: number; done: number; quota: Quota | undefined }[] = [];
  let t = start;
  let quota: Quota | undefined;
  let used = 0;
  let windowEnd = Math.ceil((start + 1) / WINDOW) * WINDOW;
  for (let done = 0; done < total; ) {
    if (t >= windowEnd) {
      windowEnd = Math.ceil((t + 1) / WINDOW) * WINDOW;
      used = 0;
    }
    if (used === LIMIT) {
      // Waiting for the reset: a moment every 250 ms.
      for (let w = t; w < windowEnd; w += 250) moments.push({ at: w, done, quota });
      t = windowEnd;
      continue;
    }
    t += SEND_MS;
    used++;
    done++;
    quota = { limit: LIMIT, remaining: LIMIT - used, resetAt: windowEnd, seenAt: t };
    moments.push({ at: t, done, quota });
  }
  return { moments, end: t };
}

describe('the ETA of a seeding run under a binding limit', () => {
  it.each([0, 1300, 2500, 4100])('200 records at 60 per 5 s, starting %i ms into a window: within 40 %% of the time left', (phase) => {
    const { moments, end } = simulate(200, 1_700_000_000_000 + phase);
    const lengths = new WindowLength();
    let known = 0;
    for (const m of moments) {
      lengths.observe(m.quota);
      const eta = estimate(200 - m.done, m.quota, m.at, 1000 / SEND_MS, lengths.ms);
      const left = end - m.at;
      if (eta === undefined) {
        // Unknown only while the window's length is: before the first reset.
        expect(lengths.ms).toBeUndefined();
        continue;
      }
      known++;
      expect('ms' in eta && eta.ms, `at ${m.at - moments[0]!.at} ms, ${m.done} done: ETA ${JSON.stringify(eta)}, left ${left}`).toBeGreaterThanOrEqual(
        left * 0.6,
      );
      expect('ms' in eta && eta.ms).toBeLessThanOrEqual(left * 1.4);
    }
    expect(lengths.ms).toBe(WINDOW);
    expect(known).toBeGreaterThan(moments.length / 2);
  });

  it('counts the windows still needed, not the send rate: 140 left with the window used up is about 12 s, not 3', () => {
    const now = 1_700_000_000_000;
    const q: Quota = { limit: 60, remaining: 0, resetAt: now + 2000, seenAt: now };
    expect(estimate(140, q, now, 50, 5000)).toEqual({ ms: 2000 + 5000 + 5000 + 400 });
    expect(estimate(30, { ...q, remaining: 40 }, now, 50, 5000)).toEqual({ ms: 600 });
  });

  it("records that fit in the next window need no window's length: the reset, then their sending", () => {
    const now = 1_700_000_000_000;
    const q: Quota = { limit: 60, remaining: 0, resetAt: now + 2000, seenAt: now };
    expect(estimate(50, q, now, 50, undefined)).toEqual({ ms: 2000 + 1000 });
    expect(estimate(70, { ...q, remaining: 10 }, now, 50, undefined)).toEqual({ ms: 2000 + 1200 });
    // Two windows more, or a quota from a window already over: unknown until the length is.
    expect(estimate(61, q, now, 50, undefined)).toBeUndefined();
    expect(estimate(61, { ...q, resetAt: now - 1 }, now, 50, undefined)).toBeUndefined();
  });

  it('a binding daily limit: when the run resumes', () => {
    const now = 1_700_000_000_000;
    const q: Quota = { limit: 1000, remaining: 10, resetAt: now + 6 * 3600_000, seenAt: now };
    expect(estimate(50, q, now, 50, undefined)).toEqual({ resumesAt: now + 6 * 3600_000 });
    expect(estimate(5, q, now, 50, undefined)).toEqual({ ms: 100 });
  });
});
