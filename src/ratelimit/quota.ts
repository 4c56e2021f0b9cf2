import { MAX_WINDOW_MS } from '../time/clock.js';
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

/** Epoch seconds from 2001-09-09 (10 digits) on; below, a number is read as delta seconds. */
const EPOCH_SECONDS_FROM = 1e9;
/** Epoch milliseconds from 2001-09-09 (13 digits) on. */
const EPOCH_MS_FROM = 1e12;

/**
 * When an X-RateLimit-Reset value says the window resets (epoch ms), or why it is not believed.
 * The heuristic (docs/rate-limits.md, "Hostile or odd headers"): below 10^9 it is delta seconds from `seenAt`,
 * from 10^9 epoch seconds, from 10^12 epoch milliseconds. Whatever it means, an instant more than a
 * day (the longest window of any plan) from `seenAt`, either way, is not believed.
 */
function resetInstant(text: string | undefined, seenAt: number): { at: number } | { problem: string } {
  const shown = () => JSON.stringify(text ?? null);
  const n = nonNegativeInt(text);
  if (n === undefined) return { problem: `X-RateLimit-Reset ${shown()} is not a whole number of seconds` };
  let at: number;
  let form: string;
  if (n < EPOCH_SECONDS_FROM) {
    at = seenAt + n * 1000;
    form = 'seconds from now';
  } else if (n < EPOCH_MS_FROM) {
    at = n * 1000;
    form = 'epoch seconds';
  } else {
    at = n;
    form = 'epoch milliseconds';
  }
  if (Math.abs(at - seenAt) > MAX_WINDOW_MS) {
    return { problem: `X-RateLimit-Reset ${shown()} (read as ${form}) is more than a day from now` };
  }
  return { at };
}

/**
 * Reads X-RateLimit-*; undefined unless all three are present and believable (see resetInstant).
 * `note` hears why a reset value was ignored (--debug).
 */
export function quotaFromHeaders(headers: Record<string, string | string[] | undefined>, seenAt: number, note?: (line: string) => void): Quota | undefined {
  const limit = nonNegativeInt(firstValue(headers['x-ratelimit-limit']));
  const remaining = nonNegativeInt(firstValue(headers['x-ratelimit-remaining']));
  const resetText = firstValue(headers['x-ratelimit-reset']);
  if (limit === undefined || remaining === undefined || resetText === undefined) return undefined;
  const reset = resetInstant(resetText, seenAt);
  if ('problem' in reset) {
    note?.(`${reset.problem}; the rate-limit headers of this response are ignored`);
    return undefined;
  }
  return { limit, remaining, resetAt: reset.at, seenAt };
}
