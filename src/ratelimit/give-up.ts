// Exit 6: the rate-limit wait the CLI refuses to make, which limit it was, and when trying again makes sense.

import { RateLimitedError } from '../errors/errors.js';
import { MAX_WINDOW_MS } from '../time/clock.js';
import { formatInstant, resetPhrase, wholeSeconds } from '../time/format.js';
import type { Quota } from './quota.js';

/** The window whose limit binds: the short one (a minute on every plan) or the daily one. */
export type LimitWindow = 'minute' | 'day';

/** A wait (Retry-After gate or an exhausted quota) longer than --max-wait. */
interface TooLong {
  kind: 'too_long';
  waitMs: number;
  maxWaitMs: number;
  cause: 'gate' | 'quota';
  remaining?: number;
  limit?: number;
  window?: LimitWindow | undefined;
  /** When the server gave the quota, if an earlier command saw it (the state file), not this one. */
  seenAt?: number | undefined;
}

/** Too long a wait, or still 429 after the last allowed retry. */
type GiveUpReason = TooLong | { kind: 'retries'; maxRetries: number; window?: LimitWindow | undefined };

const LIMIT_NAME: Record<LimitWindow, string> = { minute: 'minute limit', day: 'daily limit' };
const byLimit = (window: LimitWindow | undefined) => (window ? ` by the ${LIMIT_NAME[window]}` : '');

/** "the minute limit resets at 14:03:12 (in 42s)". */
function limitResetPhrase(window: LimitWindow | undefined, resetAt: number, now: number): string {
  const phrase = resetPhrase(resetAt, now);
  return window ? phrase.replace(/^the limit/, `the ${LIMIT_NAME[window]}`) : phrase;
}

/** Exit 6 naming the limit (minute or daily, when a quota was seen) and when it resets. */
export function rateLimitGiveUp(reason: GiveUpReason, resetAt: number, now: number, status?: number): RateLimitedError {
  const reset = limitResetPhrase(reason.window, resetAt, now);
  let message = `rate limited${byLimit(reason.window)}`;
  let advice = 'try again after that time, or raise --max-retries';
  if (reason.kind === 'too_long') {
    message = tooLongMessage(reason, reset, now);
    advice = `try again after that time, ${reason.cause === 'quota' && reason.seenAt !== undefined ? 'raise --max-wait, or run "petstore quota": it asks the server whether that still holds' : 'or raise --max-wait'}`;
  } else if (reason.maxRetries === 0) {
    message += ` (retries are off with --max-retries 0); ${reset}`;
  } else {
    message += `: still limited after ${reason.maxRetries} ${reason.maxRetries === 1 ? 'retry' : 'retries'}; ${reset}`;
  }
  return new RateLimitedError(message, { code: 'rate_limited', resetAt, advice, ...(status !== undefined ? { status } : {}) });
}

function tooLongMessage(reason: TooLong, reset: string, now: number): string {
  const name = reason.window ? LIMIT_NAME[reason.window] : undefined;
  const wait = `${wholeSeconds(reason.waitMs)}s`;
  const tail = `longer than --max-wait ${reason.maxWaitMs / 1000}s; ${reset}`;
  const left = reason.limit !== undefined ? `${reason.remaining ?? 0}/${reason.limit} left` : '';
  if (reason.cause === 'gate') {
    return `rate limited${byLimit(reason.window)}${name && left ? ` (${left})` : ''}: the server asked to wait ${wait} before the next request, ${tail}`;
  }
  const window = name ? `${reason.window === 'day' ? 'daily' : 'minute'} window` : 'window';
  const seen = reason.seenAt !== undefined ? `as the server said at ${formatInstant(reason.seenAt, now)}` : '';
  const figures = [left, seen].filter((part) => part !== '');
  return `${name ?? 'rate limit'} reached${figures.length > 0 ? ` (${figures.join(', ')})` : ''}: waiting for the ${window} would take ${wait}, ${tail}`;
}

/** Exit 6 for a gate or quota wait longer than --max-wait, naming the quota's figures (`earlier`: an earlier command's). */
export function waitTooLong(
  cause: 'gate' | 'quota',
  until: number,
  waitMs: number,
  maxWaitMs: number,
  quota: Quota | undefined,
  window: LimitWindow | undefined,
  earlier: boolean,
  now: number,
): RateLimitedError {
  const figures = quota ? { remaining: quota.remaining, limit: quota.limit, ...(cause === 'quota' && earlier ? { seenAt: quota.seenAt } : {}) } : {};
  return rateLimitGiveUp({ kind: 'too_long', waitMs, maxWaitMs, cause, ...figures, window }, cause === 'quota' && quota ? quota.resetAt : until, now);
}

/** Exit 6 for a 429 whose Retry-After (`value`, asking `ms`) is longer than --max-wait; more than a day names no reset. */
export function retryAfterTooLong(ms: number, value: string, maxWaitMs: number, now: number, window: LimitWindow | undefined): RateLimitedError {
  const shown = value.length > 64 ? `${value.slice(0, 64)}…` : value;
  const asked = `the server asked to wait ${wholeSeconds(ms)}s before the next request (Retry-After: ${shown})`;
  const maxWait = `--max-wait ${maxWaitMs / 1000}s`;
  if (ms > MAX_WINDOW_MS) {
    const advice = 'try again later; if it persists, the server is misconfigured';
    return new RateLimitedError(`rate limited${byLimit(window)}: ${asked}, more than a day, longer than ${maxWait} and than any rate-limit window`, {
      code: 'rate_limited',
      status: 429,
      advice,
    });
  }
  const message = `rate limited${byLimit(window)}: ${asked}, longer than ${maxWait}; ${limitResetPhrase(window, now + ms, now)}`;
  return new RateLimitedError(message, { code: 'rate_limited', status: 429, resetAt: now + ms, advice: 'try again after that time, or raise --max-wait' });
}
