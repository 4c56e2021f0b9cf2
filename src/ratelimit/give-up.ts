// Exit 6: the rate-limit wait the CLI refuses to make, and when trying again makes sense.

import { RateLimitedError } from '../errors/errors.js';
import { resetPhrase, wholeSeconds } from '../time/format.js';

export type GiveUpReason =
  /** A wait (Retry-After gate or an exhausted quota) is longer than --max-wait. */
  | { kind: 'too_long'; waitMs: number; maxWaitMs: number; cause: 'gate' | 'quota'; remaining?: number; limit?: number }
  /** Still 429 after the last allowed retry. */
  | { kind: 'retries'; maxRetries: number };

/** Exit 6 with when the limit resets (absolute local time and seconds from now). */
export function rateLimitGiveUp(reason: GiveUpReason, resetAt: number, now: number, status?: number): RateLimitedError {
  let message: string;
  let hint: string;
  if (reason.kind === 'too_long') {
    const wait = `${wholeSeconds(reason.waitMs)}s`;
    message =
      reason.cause === 'gate'
        ? `rate limited: the server asked to wait ${wait} before the next request, longer than --max-wait ${reason.maxWaitMs / 1000}s; ${resetPhrase(resetAt, now)}`
        : `rate limit reached${reason.limit !== undefined ? ` (${reason.remaining ?? 0}/${reason.limit} left)` : ''}: waiting for the window would take ${wait}, longer than --max-wait ${reason.maxWaitMs / 1000}s; ${resetPhrase(resetAt, now)}`;
    hint = 'run again after that time, or raise --max-wait';
  } else {
    message =
      reason.maxRetries === 0
        ? `rate limited (retries are off with --max-retries 0); ${resetPhrase(resetAt, now)}`
        : `rate limited: still limited after ${reason.maxRetries} ${reason.maxRetries === 1 ? 'retry' : 'retries'}; ${resetPhrase(resetAt, now)}`;
    hint = 'run again after that time, or raise --max-retries';
  }
  return new RateLimitedError(message, { code: 'rate_limited', resetAt, hint, ...(status !== undefined ? { status } : {}) });
}
