// Property: Retry-After (src/http/retry-after.ts) never throws, never asks for a
// negative or non-finite wait, and reads every integer and every HTTP-date form exactly.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from '../../../src/http/retry-policy.js';
import { parseHttpDate } from '../../../src/wire/http-date.js';

const RUNS = 500;
const TEN_YEARS_MS = 10 * 365 * 24 * 3600 * 1000;
const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const LONG_DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad = (n: number) => String(n).padStart(2, '0');
const hms = (d: Date) => `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;

/** The three HTTP-date forms of RFC 9110 section 5.6.7. */
const FORMS = {
  imf: (d: Date) => `${DAYS[d.getUTCDay()]}, ${pad(d.getUTCDate())} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()} ${hms(d)} GMT`,
  rfc850: (d: Date) => `${LONG_DAYS[d.getUTCDay()]}, ${pad(d.getUTCDate())}-${MONTHS[d.getUTCMonth()]}-${pad(d.getUTCFullYear() % 100)} ${hms(d)} GMT`,
  asctime: (d: Date) => `${DAYS[d.getUTCDay()]} ${MONTHS[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2, ' ')} ${hms(d)} ${d.getUTCFullYear()}`,
} as const;

const NOW = Date.UTC(2030, 5, 15, 12, 0, 0);
/** Whole seconds within 40 years of NOW (RFC 850's two-digit years are unambiguous there). */
const instant = fc.integer({ min: -40 * 365 * 86400, max: 40 * 365 * 86400 }).map((s) => new Date(NOW + s * 1000));
const now = fc.integer({ min: Date.UTC(1990, 0, 1), max: Date.UTC(2090, 0, 1) });

function sane(r: ReturnType<typeof parseRetryAfter>): void {
  if (r === undefined) return;
  expect(Number.isFinite(r.ms)).toBe(true);
  expect(r.ms).toBeGreaterThanOrEqual(0);
  expect(r.ms).toBeLessThanOrEqual(TEN_YEARS_MS);
  expect(['delta', 'date']).toContain(r.form);
}

describe('Retry-After (property)', () => {
  it(`any header text: never throws; undefined, or a finite wait >= 0 (${RUNS} runs)`, () => {
    const header = fc.oneof(
      fc.string(),
      fc.string({ unit: 'binary' }),
      fc.double().map(String),
      fc.constantFrom('-5', 'abc', '99999999', '1e3', 'Infinity', 'NaN', '0x10', '', ' ', '-0', '+1', '1.', '.5', '9'.repeat(400)),
      fc.array(fc.string(), { maxLength: 3 }),
    );
    fc.assert(
      fc.property(header, now, fc.option(fc.string(), { nil: undefined }), (value, at, date) => {
        sane(parseRetryAfter(value, at, date));
      }),
      { numRuns: RUNS },
    );
  });

  it(`any integer: max(0, n) seconds, capped (${RUNS} runs)`, () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer(), fc.integer({ min: -100, max: 100_000 })), fc.constantFrom('', ' ', '+'), now, (n, prefix, at) => {
        const text = `${n >= 0 ? prefix : ''}${n}`;
        const r = parseRetryAfter(text, at);
        expect(r).toEqual({ ms: Math.min(TEN_YEARS_MS, Math.max(0, n * 1000)), form: 'delta' });
      }),
      { numRuns: RUNS },
    );
  });

  for (const [form, write] of Object.entries(FORMS)) {
    it(`a ${form} date: the time until it from now, 0 when past (${RUNS} runs)`, () => {
      fc.assert(
        fc.property(instant, (date) => {
          const text = write(date);
          expect(parseHttpDate(text, NOW)).toBe(date.getTime());
          const r = parseRetryAfter(text, NOW);
          expect(r).toEqual({ ms: Math.min(TEN_YEARS_MS, Math.max(0, date.getTime() - NOW)), form: 'date' });
        }),
        { numRuns: RUNS },
      );
    });
  }

  it(`with the server's Date header the wait is measured on the server's clock, whatever our clock says (${RUNS} runs)`, () => {
    fc.assert(
      fc.property(
        instant,
        fc.integer({ min: 0, max: 3600 }),
        fc.integer({ min: -3600, max: 3600 }),
        fc.constantFrom(...(Object.keys(FORMS) as (keyof typeof FORMS)[])),
        (serverNow, waitS, skewS, form) => {
          const retryAt = new Date(serverNow.getTime() + waitS * 1000);
          const ours = serverNow.getTime() + skewS * 1000;
          const r = parseRetryAfter(FORMS[form](retryAt), ours, FORMS.imf(serverNow));
          expect(r).toEqual({ ms: waitS * 1000, form: 'date' });
        },
      ),
      { numRuns: RUNS },
    );
  });

  it(`a date with a field out of range (day 32, hour 24, Feb 30) is not a date (${RUNS} runs)`, () => {
    fc.assert(
      fc.property(
        fc.constantFrom('Mon, 32 Jan 2030 00:00:00 GMT', 'Mon, 30 Feb 2030 00:00:00 GMT', 'Mon, 01 Jan 2030 24:00:00 GMT', 'Mon, 01 Foo 2030 00:00:00 GMT'),
        (text) => {
          expect(parseHttpDate(text, NOW)).toBeUndefined();
          expect(parseRetryAfter(text, NOW)).toBeUndefined();
        },
      ),
      { numRuns: 20 },
    );
  });
});
