// Exit 6: the rate-limit wait the CLI refuses to make, which limit it was, and when trying again makes sense.

import { RateLimitedError } from '../errors/errors.js';
import { MAX_WINDOW_MS } from '../time/clock.js';
import { formatInstant, resetPhrase, wholeSeconds } from '../time/format.js';
import type { LimitWindow } from './fleet.js';
import type { Quota } from './quota.js';

const LIMIT_NAME: Record<LimitWindow, string> = { minute: 'minute limit', day: 'daily limit' };
const byLimit = (window: LimitWindow | undefined) => (window ? ` by the ${LIMIT_NAME[window]}` : '');

/** "the minute limit resets at 14:03:12 (in 42s)". */
function limitResetPhrase(window: LimitWindow | undefined, resetAt: number, now: number): string {
  const phrase = resetPhrase(resetAt, now);
  return window ? phrase.replace(/^the limit/, `the ${LIMIT_NAME[window]}`) : phrase;
}

/** Exit 6 for a 429 after the last of `n` retries, naming the limit (minute or daily, when a quota was seen) and when it resets. */
export function rateLimitGiveUp(n: number, window: LimitWindow | undefined, resetAt: number, now: number): RateLimitedError {
  const reset = limitResetPhrase(window, resetAt, now);
  const why = n === 0 ? ` (retries are off with --max-retries 0); ${reset}` : `: still limited after ${n} ${n === 1 ? 'retry' : 'retries'}; ${reset}`;
  const advice = 'try again after that time, or raise --max-retries';
  return new RateLimitedError(`rate limited${byLimit(window)}${why}`, { code: 'rate_limited', status: 429, advice });
}

/** Exit 6 for a gate or quota wait longer than --max-wait, naming the quota's figures (`earlier`: an earlier command's). */
export function waitTooLong(
  cause: 'gate' | 'quota',
  until: number,
  maxWaitMs: number,
  quota: Quota | undefined,
  window: LimitWindow | undefined,
  earlier: boolean,
  now: number,
): RateLimitedError {
  const resetAt = cause === 'quota' && quota ? quota.resetAt : until;
  const name = window && LIMIT_NAME[window];
  const wait = `${wholeSeconds(until - now)}s`;
  const tail = `longer than --max-wait ${maxWaitMs / 1000}s; ${limitResetPhrase(window, resetAt, now)}`;
  const left = quota ? `${quota.remaining}/${quota.limit} left` : '';
  if (cause === 'gate') {
    const message = `rate limited${byLimit(window)}${name && left ? ` (${left})` : ''}: the server asked to wait ${wait} before the next request, ${tail}`;
    return new RateLimitedError(message, { code: 'rate_limited', advice: 'try again after that time, or raise --max-wait' });
  }
  // The figures an earlier command saw (the state file) may be stale: say when, and how to ask the server.
  const seen = quota && earlier ? `as the server said at ${formatInstant(quota.seenAt, now)}` : '';
  const figures = [left, seen].filter((part) => part !== '');
  const windowName = name?.replace('limit', 'window') ?? 'window';
  const message = `${name ?? 'rate limit'} reached${figures.length > 0 ? ` (${figures.join(', ')})` : ''}: waiting for the ${windowName} would take ${wait}, ${tail}`;
  const advice = `try again after that time, ${seen ? 'raise --max-wait, or run "petstore quota": it asks the server whether that still holds' : 'or raise --max-wait'}`;
  return new RateLimitedError(message, { code: 'rate_limited', advice });
}
/** Exit 6 for a 429 whose Retry-After (`value`, asking `ms`) is longer than --max-wait; more than a day names no reset. */
export function retryAfterTooLong(ms: number, value: string, maxWaitMs: number, now: number, window: LimitWindow | undefined): RateLimitedError {
  const shown = value.length > 64 ? `${value.slice(0, 64)}…` : value;
  const asked = `the server asked to wait ${wholeSeconds(ms)}s before the next request (Retry-After: ${shown})`;
  const maxWait = `--max-wait ${maxWaitMs / 1000}s`;
  if (ms > MAX_WINDOW_MS) {
    const message = `rate limited${byLimit(window)}: ${asked}, more than a day, longer than ${maxWait} and than any rate-limit window`;
    return new RateLimitedError(message, { code: 'rate_limited', status: 429, advice: 'try again later; if it persists, the server is misconfigured' });
  }
  const message = `rate limited${byLimit(window)}: ${asked}, longer than ${maxWait}; ${limitResetPhrase(window, now + ms, now)}`;
  return new RateLimitedError(message, { code: 'rate_limited', status: 429, advice: 'try again after that time, or raise --max-wait' });
}
