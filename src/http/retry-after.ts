// Retry-After (RFC 9110 section 10.2.3): delta-seconds or an HTTP-date (src/wire/http-date.ts).

import { firstValue } from '../wire/headers.js';
import { parseHttpDate } from '../wire/http-date.js';

/** Longest wait represented: "forever" for every practical --max-wait. */
const MAX_MS = 10 * 365 * 24 * 3600 * 1000;

/**
 * How long a Retry-After asks to wait from `now` (garbage: undefined). A date (which depends on both clocks) is
 * measured from the answer's Date header, if valid.
 */
export function parseRetryAfter(
  value: string | string[] | undefined,
  now: number,
  serverDate?: string | string[] | undefined,
): { ms: number; form: 'delta' | 'date' } | undefined {
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
