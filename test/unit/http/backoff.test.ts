import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { backoffDelay } from '../../../src/http/retry-policy.js';

describe('backoff with full jitter', () => {
  it('ceilings (random at 1): base 1 s, factor 2, cap 30 s', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 20, 1000].map((n) => backoffDelay(n, () => 1))).toEqual([1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000, 30_000]);
  });

  it('the extremes of random give 0 and the ceiling', () => {
    expect(backoffDelay(3, () => 0)).toBe(0);
    expect(backoffDelay(3, () => 0.999_999_9)).toBe(8000);
    expect(backoffDelay(2, () => 0.5)).toBe(2000);
  });

  it('always within [0, ceiling] for any retry number and random value', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 60 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (n, r) => {
        const d = backoffDelay(n, () => r);
        return d >= 0 && d <= Math.min(30_000, 1000 * 2 ** n) && Number.isInteger(d);
      }),
    );
  });

  it('a misbehaving random source stays within bounds', () => {
    for (const r of [-1, 2, Number.NaN, Number.POSITIVE_INFINITY]) {
      const d = backoffDelay(1, () => r);
      expect(d).toBeGreaterThanOrEqual(0);
      expect(d).toBeLessThanOrEqual(2000);
    }
  });

  it('is jittered: different random values give different waits', () => {
    const seen = new Set(Array.from({ length: 50 }, (_, i) => backoffDelay(4, () => i / 50)));
    expect(seen.size).toBe(50);
  });
});
