// Exit 6: the rate-limit wait the CLI refuses to make, and when trying again makes sense.

import { RateLimitedError } from '../errors/errors.js';
import { resetPhrase, wholeSeconds } from '../time/format.js';

export type GiveUpReason =
  /** A wait (Retry-After gate or an exhausted quota) is longer than --max-wait. */
  | { kind: 'too_long'; waitMs: number; maxWaitMs: number; cause: 'gate' | 'quota'; remaining?: number; limit?: number; window?: 'day' }
  /** Still 429 after the last allowed retry. */
  | { kind: 'retries'; maxRetries: number; window?: 'day' };

/** Exit 6 with when the limit resets (absolute local time and seconds from now); the daily limit is named as such. */
export function rateLimitGiveUp(reason: GiveUpReason, resetAt: number, now: number, status?: number): RateLimitedError {
  let message: string;
  let hint: string;
  const daily = reason.window === 'day';
  const reset = daily ? resetPhrase(resetAt, now).replace(/^the limit/, 'the daily limit') : resetPhrase(resetAt, now);
  if (reason.kind === 'too_long') {
    const wait = `${wholeSeconds(reason.waitMs)}s`;
    const left = reason.limit !== undefined ? ` (${reason.remaining ?? 0}/${reason.limit} left)` : '';
    if (reason.cause === 'gate') {
      message = `rate limited${daily ? ` by the daily limit${left}` : ''}: the server asked to wait ${wait} before the next request, longer than --max-wait ${reason.maxWaitMs / 1000}s; ${reset}`;
    } else {
      message = `${daily ? 'daily limit' : 'rate limit'} reached${left}: waiting for the ${daily ? 'daily ' : ''}window would take ${wait}, longer than --max-wait ${reason.maxWaitMs / 1000}s; ${reset}`;
    }
    hint = 'run again after that time, or raise --max-wait';
  } else {
    const by = daily ? ' by the daily limit' : '';
    message =
      reason.maxRetries === 0
        ? `rate limited${by} (retries are off with --max-retries 0); ${reset}`
        : `rate limited${by}: still limited after ${reason.maxRetries} ${reason.maxRetries === 1 ? 'retry' : 'retries'}; ${reset}`;
    hint = 'run again after that time, or raise --max-retries';
  }
  return new RateLimitedError(message, { code: 'rate_limited', resetAt, hint, ...(status !== undefined ? { status } : {}) });
}
