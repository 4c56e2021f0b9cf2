// Which outcomes of one exchange are worth repeating, and how long to wait before the next attempt.
//
//                              GET/HEAD/OPTIONS        POST (and every other method)
//   429                        retry (Retry-After)     retry (Retry-After): not processed
//   502, 503, 504              retry (backoff)         no: it may have been processed
//   refused / not connected    retry (backoff)         retry (backoff): never sent
//   reset, timeout after send  retry (backoff)         no: outcome unknown, reported as such
//   DNS name not found, TLS    no (will not change)    no
//   any other status           no                      no

import { causeCode, notSentFailure, TransportError } from '../transport/errors.js';
import { type HttpMethod, isSafeMethod } from '../transport/exchange.js';
import { firstValue } from '../wire/headers.js';
import { parseHttpDate } from '../wire/http-date.js';

/** 'unknown': the request may have been processed, repeating could duplicate it; 'throw': rethrow the fault. */
export type Verdict = { action: 'return' } | { action: 'unknown' } | { action: 'throw' } | { action: 'retry'; wait: 'rate_limit' | 'backoff' };

const BACKOFF: Verdict = { action: 'retry', wait: 'backoff' };

/** What to do after one attempt of `method` ended in `outcome`. */
export function retryVerdict(method: HttpMethod | string, outcome: { status: number } | { error: unknown }): Verdict {
  if ('status' in outcome) {
    if (outcome.status === 429) return { action: 'retry', wait: 'rate_limit' };
    return [502, 503, 504].includes(outcome.status) && isSafeMethod(method) ? BACKOFF : { action: 'return' };
  }
  if (!(outcome.error instanceof TransportError)) return { action: 'throw' };
  const notSent = notSentFailure(causeCode(outcome.error));
  if (isSafeMethod(method)) return notSent === 'permanent' ? { action: 'throw' } : BACKOFF;
  if (outcome.error.sent || outcome.error.timedOut) return { action: 'unknown' };
  return notSent === 'transient' ? BACKOFF : { action: 'throw' };
}

/** Full jitter: a random wait before retry number `retry` (0 for the first) up to a ceiling of 1 s, doubling, at most 30 s; `random` is uniform in [0, 1). */
export function backoffDelay(retry: number, random: () => number = Math.random): number {
  const r = random();
  return Math.round((Number.isFinite(r) ? Math.min(1, Math.max(0, r)) : 0) * Math.min(30_000, 1000 * 2 ** Math.max(0, retry)));
}

/** Longest wait represented: "forever" for every practical --max-wait. */
const MAX_RETRY_AFTER_MS = 10 * 365 * 24 * 3600 * 1000;

/** How long a Retry-After (RFC 9110 10.2.3) asks to wait from `now`; a date is measured from the answer's Date header, if valid. */
export function parseRetryAfter(
  value: string | string[] | undefined,
  now: number,
  serverDate?: string | string[] | undefined,
): { ms: number; form: 'delta' | 'date' } | undefined {
  const text = firstValue(value)?.trim();
  if (!text) return undefined;
  const clamp = (ms: number) => Math.min(MAX_RETRY_AFTER_MS, Math.max(0, ms));
  if (/^[+-]?\d+(\.\d+)?$/.test(text)) {
    return { ms: clamp(Math.ceil(Number(text) * 1000)), form: 'delta' };
  }
  const at = parseHttpDate(text, now);
  if (at === undefined) return undefined;
  const dateText = firstValue(serverDate);
  const serverNow = dateText === undefined ? undefined : parseHttpDate(dateText, now);
  return { ms: clamp(at - (serverNow ?? now)), form: 'date' };
}
