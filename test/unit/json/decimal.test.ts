// src/json/decimal.ts: the same text as String(n) for every number, put together from pieces below a billion.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decimal } from '../../../src/json/decimal.js';

describe('decimal', () => {
  it('is String(n) for any integer, at every piece boundary and past a billion', () => {
    for (const n of [0, 1, 9, 10, 99, 100, 999, 1000, 1001, 10_000, 99_999, 100_000, 999_999, 1_000_000, 1_000_001, 999_999_999, 1_000_000_000, 2 ** 53 - 1]) {
      expect(decimal(n)).toBe(String(n));
    }
    fc.assert(
      fc.property(fc.oneof(fc.nat({ max: 999_999_999 }), fc.integer(), fc.maxSafeInteger()), (n) => {
        expect(decimal(n)).toBe(String(n));
      }),
      { numRuns: 5000 },
    );
  });

  it('is String(n) for what is not a whole number under a billion', () => {
    for (const n of [-1, -1000, 1.5, 1e21, Number.NaN, Number.POSITIVE_INFINITY, -0]) expect(decimal(n)).toBe(String(n));
  });
});
