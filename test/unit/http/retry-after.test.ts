import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from '../../../src/http/retry-policy.js';
import { parseHttpDate } from '../../../src/wire/http-date.js';

const NOW = Date.UTC(1994, 10, 6, 8, 49, 30); // Sun, 06 Nov 1994 08:49:30 GMT

describe('parseRetryAfter: delta-seconds', () => {
  it.each([
    ['0', 0],
    ['1', 1000],
    ['12', 12_000],
    [' 7 ', 7000],
    ['120', 120_000],
    ['+3', 3000],
  ])('%j waits %d ms', (value, ms) => {
    expect(parseRetryAfter(value, NOW)).toEqual({ ms, form: 'delta' });
  });

  it('clamps negative values to 0', () => {
    expect(parseRetryAfter('-5', NOW)).toEqual({ ms: 0, form: 'delta' });
    expect(parseRetryAfter('-0', NOW)).toEqual({ ms: 0, form: 'delta' });
  });

  it('rounds fractional seconds up (never early)', () => {
    expect(parseRetryAfter('1.0001', NOW)?.ms).toBe(1001);
    expect(parseRetryAfter('0.5', NOW)?.ms).toBe(500);
  });

  it('keeps huge values huge (so max-wait rejects them) but finite', () => {
    for (const v of ['86400', '99999999999', '9'.repeat(400)]) {
      const r = parseRetryAfter(v, NOW);
      expect(r?.form).toBe('delta');
      expect(r!.ms).toBeGreaterThanOrEqual(86_400_000);
      expect(Number.isFinite(r!.ms)).toBe(true);
    }
  });

  it('takes the first of repeated headers', () => {
    expect(parseRetryAfter(['4', '9'], NOW)?.ms).toBe(4000);
  });
});

describe('parseRetryAfter: HTTP-date', () => {
  it('IMF-fixdate', () => {
    expect(parseRetryAfter('Sun, 06 Nov 1994 08:49:37 GMT', NOW)).toEqual({ ms: 7000, form: 'date' });
  });

  it('obsolete RFC 850 form', () => {
    expect(parseRetryAfter('Sunday, 06-Nov-94 08:49:37 GMT', NOW)).toEqual({ ms: 7000, form: 'date' });
  });

  it('obsolete asctime form, with the padded and the plain day', () => {
    expect(parseRetryAfter('Sun Nov  6 08:49:37 1994', NOW)).toEqual({ ms: 7000, form: 'date' });
    expect(parseRetryAfter('Sun Nov 6 08:49:37 1994', NOW)).toEqual({ ms: 7000, form: 'date' });
  });

  it('is case-insensitive about names', () => {
    expect(parseRetryAfter('sun, 06 nov 1994 08:49:37 gmt', NOW)?.ms).toBe(7000);
  });

  it('a date in the past means no wait', () => {
    expect(parseRetryAfter('Sun, 06 Nov 1994 08:00:00 GMT', NOW)).toEqual({ ms: 0, form: 'date' });
  });

  it("measures from the response's Date header when it is valid (cancels clock skew)", () => {
    // Our clock is 1 h ahead of the server's: the server still asks for 5 s.
    const ourNow = NOW + 3_600_000;
    expect(parseRetryAfter('Sun, 06 Nov 1994 08:49:35 GMT', ourNow, 'Sun, 06 Nov 1994 08:49:30 GMT')?.ms).toBe(5000);
    // An unparsable Date header falls back to our clock.
    expect(parseRetryAfter('Sun, 06 Nov 1994 08:49:35 GMT', NOW, 'yesterday')?.ms).toBe(5000);
  });

  it('a far-future date is a huge wait', () => {
    expect(parseRetryAfter('Fri, 31 Dec 2100 23:59:59 GMT', NOW)!.ms).toBeGreaterThan(365 * 24 * 3600 * 1000);
  });
});

describe('parseRetryAfter: garbage', () => {
  it.each([
    undefined,
    '',
    '   ',
    'soon',
    '12abc',
    '1e3',
    '0x10',
    '12 s',
    'Sun, 06 Nov 1994 08:49:37', // no zone
    'Sun, 06 Nov 1994 08:49:37 PST',
    'Sun, 31 Feb 1994 08:49:37 GMT', // no such day
    'Sun, 06 Foo 1994 08:49:37 GMT',
    'Sun, 06 Nov 1994 25:49:37 GMT',
    'Sunday, 06-Nov-1994 08:49:37 GMT', // RFC 850 has two-digit years
    '2030-01-01T00:00:00Z', // ISO 8601 is not an HTTP-date
  ])('%j gives undefined (backoff)', (value) => {
    expect(parseRetryAfter(value, NOW)).toBeUndefined();
  });
});

describe('parseHttpDate', () => {
  it('reads a two-digit RFC 850 year as the most recent past century when over 50 years ahead', () => {
    const in2030 = Date.UTC(2030, 0, 1);
    expect(new Date(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT', in2030)!).getUTCFullYear()).toBe(1994);
    expect(new Date(parseHttpDate('Monday, 06-Nov-45 08:49:37 GMT', in2030)!).getUTCFullYear()).toBe(2045);
    expect(new Date(parseHttpDate('Monday, 06-Nov-80 08:49:37 GMT', in2030)!).getUTCFullYear()).toBe(2080);
    expect(new Date(parseHttpDate('Monday, 06-Nov-81 08:49:37 GMT', in2030)!).getUTCFullYear()).toBe(1981);
  });

  it('all three forms name the same instant', () => {
    const a = parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT', NOW);
    expect(a).toBe(Date.UTC(1994, 10, 6, 8, 49, 37));
    expect(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT', NOW)).toBe(a);
    expect(parseHttpDate('Sun Nov  6 08:49:37 1994', NOW)).toBe(a);
  });
});
