import { firstValue } from '../wire/headers.js';

/** The rate-limit quota the server reported on its latest response. */
export interface Quota {
  limit: number;
  remaining: number;
  /** Epoch milliseconds at which the window resets. */
  resetAt: number;
  /** Epoch milliseconds at which the response carrying it was received. */
  seenAt: number;
}

function nonNegativeInt(text: string | undefined): number | undefined {
  if (text === undefined || !/^\s*\d+\s*$/.test(text)) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** Reads X-RateLimit-*; undefined unless all three are present and numeric. */
export function quotaFromHeaders(headers: Record<string, string | string[] | undefined>, seenAt: number): Quota | undefined {
  const limit = nonNegativeInt(firstValue(headers['x-ratelimit-limit']));
  const remaining = nonNegativeInt(firstValue(headers['x-ratelimit-remaining']));
  const reset = nonNegativeInt(firstValue(headers['x-ratelimit-reset']));
  if (limit === undefined || remaining === undefined || reset === undefined) return undefined;
  return { limit, remaining, resetAt: reset * 1000, seenAt };
}
