// Retry-After (RFC 9110 section 10.2.3): delta-seconds or an HTTP-date.
//
// HTTP-date (RFC 9110 section 5.6.7) has one preferred form and two obsolete
// ones that recipients must still accept:
//   IMF-fixdate  Sun, 06 Nov 1994 08:49:37 GMT
//   RFC 850      Sunday, 06-Nov-94 08:49:37 GMT
//   asctime      Sun Nov  6 08:49:37 1994

import { firstValue } from '../wire/headers.js';

export interface RetryAfter {
  /** Milliseconds to wait from `now` (never negative). */
  ms: number;
  /** delta-seconds are exact; an absolute date depends on both clocks. */
  form: 'delta' | 'date';
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const SHORT_DAYS = '(?:mon|tue|wed|thu|fri|sat|sun)';
const LONG_DAYS = '(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)';
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';

const IMF_FIXDATE = new RegExp(`^${SHORT_DAYS},\\s+(\\d{1,2})\\s+([a-z]{3})\\s+(\\d{4})\\s+${TIME}\\s+(?:GMT|UTC)$`, 'i');
const RFC_850 = new RegExp(`^${LONG_DAYS},\\s+(\\d{1,2})-([a-z]{3})-(\\d{2})\\s+${TIME}\\s+(?:GMT|UTC)$`, 'i');
const ASCTIME = new RegExp(`^${SHORT_DAYS}\\s+([a-z]{3})\\s+(\\d{1,2})\\s+${TIME}\\s+(\\d{4})$`, 'i');

/** Longest wait we represent; anything above is "forever" for every practical --max-wait. */
const MAX_MS = 10 * 365 * 24 * 3600 * 1000;

function utc(year: number, monthName: string, day: number, h: number, m: number, s: number): number | undefined {
  const month = MONTHS.indexOf(monthName.toLowerCase());
  if (month < 0 || day < 1 || day > 31 || h > 23 || m > 59 || s > 60) return undefined;
  const ms = Date.UTC(year, month, day, h, m, Math.min(s, 59));
  // Reject dates that roll over (31 Feb).
  if (new Date(ms).getUTCDate() !== day) return undefined;
  return ms;
}

/**
 * RFC 850's two-digit year: RFC 9110 says a year that appears to be more than
 * 50 years in the future is the most recent past year with those last digits.
 */
function fullYear(twoDigits: number, now: number): number {
  const current = new Date(now).getUTCFullYear();
  let year = Math.floor(current / 100) * 100 + twoDigits;
  if (year > current + 50) year -= 100;
  return year;
}

/** Epoch ms of an HTTP-date in any of its three forms; undefined when it is none of them. */
export function parseHttpDate(text: string, now: number): number | undefined {
  const t = text.trim();
  let m = IMF_FIXDATE.exec(t);
  if (m) return utc(Number(m[3]), m[2]!, Number(m[1]), Number(m[4]), Number(m[5]), Number(m[6]));
  m = RFC_850.exec(t);
  if (m) return utc(fullYear(Number(m[3]), now), m[2]!, Number(m[1]), Number(m[4]), Number(m[5]), Number(m[6]));
  m = ASCTIME.exec(t);
  if (m) return utc(Number(m[6]), m[1]!, Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]));
  return undefined;
}

/**
 * How long a Retry-After value asks to wait, measured from `now` (when the
 * response arrived). Negative values clamp to 0; garbage gives undefined (the
 * caller falls back to backoff). For a date, the response's own Date header,
 * when valid, is used as "now" on the server's clock, which cancels clock skew.
 */
export function parseRetryAfter(value: string | string[] | undefined, now: number, serverDate?: string | string[] | undefined): RetryAfter | undefined {
  const text = firstValue(value)?.trim();
  if (!text) return undefined;
  if (/^[+-]?\d+(\.\d+)?$/.test(text)) {
    const seconds = Number(text);
    if (!Number.isFinite(seconds)) return { ms: MAX_MS, form: 'delta' };
    return { ms: Math.min(MAX_MS, Math.max(0, Math.ceil(seconds * 1000))), form: 'delta' };
  }
  const at = parseHttpDate(text, now);
  if (at === undefined) return undefined;
  const dateText = firstValue(serverDate);
  const serverNow = dateText === undefined ? undefined : parseHttpDate(dateText, now);
  const ms = at - (serverNow ?? now);
  return { ms: Math.min(MAX_MS, Math.max(0, ms)), form: 'date' };
}
