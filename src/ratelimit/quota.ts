import { MAX_WINDOW_MS } from '../time/clock.js';
import { firstValue } from '../wire/headers.js';

/** The rate-limit quota of a response: when its window resets, and when the response was received (epoch ms). */
export interface Quota {
  limit: number;
  remaining: number;
  resetAt: number;
  seenAt: number;
}

/** Red at 0, yellow under 10% of the limit: the quota line after a command and `petstore quota`'s table. */
export function quotaTone({ remaining, limit }: Pick<Quota, 'remaining' | 'limit'>): 'red' | 'yellow' | undefined {
  return remaining <= 0 ? 'red' : remaining < limit * 0.1 ? 'yellow' : undefined;
}

function nonNegativeInt(text: string | undefined): number | undefined {
  if (text === undefined || !/^\s*\d+\s*$/.test(text)) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : undefined;
}

/**
 * Reads X-RateLimit-*; undefined unless all three are present and believable. The reset: below 10^9 delta seconds, from
 * 10^9 epoch seconds, from 10^12 epoch ms; more than a day from `seenAt` is not believed, and `note` hears why (docs/rate-limits.md).
 */
export function quotaFromHeaders(headers: Record<string, string | string[] | undefined>, seenAt: number, note?: (line: string) => void): Quota | undefined {
  const limit = nonNegativeInt(firstValue(headers['x-ratelimit-limit']));
  const remaining = nonNegativeInt(firstValue(headers['x-ratelimit-remaining']));
  const resetText = firstValue(headers['x-ratelimit-reset']);
  if (limit === undefined || remaining === undefined || resetText === undefined) return undefined;
  const n = nonNegativeInt(resetText) ?? Number.NaN;
  const [at, form]: [number, string] = n < 1e9 ? [seenAt + n * 1000, 'seconds from now'] : n < 1e12 ? [n * 1000, 'epoch seconds'] : [n, 'epoch milliseconds'];
  if (Math.abs(at - seenAt) <= MAX_WINDOW_MS) return { limit, remaining, resetAt: at, seenAt };
  const why = Number.isNaN(n) ? 'is not a whole number of seconds' : `(read as ${form}) is more than a day from now`;
  note?.(`X-RateLimit-Reset ${JSON.stringify(resetText)} ${why}; the rate-limit headers of this response are ignored`);
  return undefined;
}
