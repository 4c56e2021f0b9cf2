// Errors of the retry layer that callers (pets add, bulk seeding) recognise.

import { NetworkError, RateLimitedError } from '../errors/errors.js';
import type { ApiRequest } from '../transport/exchange.js';
import type { TransportError } from '../transport/errors.js';

/**
 * A non-idempotent request (POST) failed after it may have reached the server
 * (connection reset once the body went out, or a timeout). It is not retried,
 * since that could create a duplicate; the caller reports the record as
 * "outcome unknown". Exit code 7 (network).
 */
export class OutcomeUnknownError extends NetworkError {
  /** The request whose outcome is unknown, body included. */
  readonly request: ApiRequest;

  constructor(request: ApiRequest, cause: TransportError) {
    const why = cause.timedOut ? 'no response before the timeout' : 'the connection failed after the request was sent';
    const check = request.path.startsWith('/pets') ? 'petstore pets list' : undefined;
    super(
      `the request may or may not have been processed (${why}: ${cause.message}); ` +
        (check ? `check with "${check}" before retrying` : 'check the server before retrying'),
      { code: 'outcome_unknown', cause },
    );
    this.name = 'OutcomeUnknownError';
    this.request = request;
  }
}

export function isOutcomeUnknown(error: unknown): error is OutcomeUnknownError {
  return error instanceof OutcomeUnknownError;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** Local wall-clock time of `at`, with the date when it is not today. */
export function formatInstant(at: number, now: number): string {
  const d = new Date(at);
  const time = `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  const today = new Date(now);
  const sameDay = d.getFullYear() === today.getFullYear() && d.getMonth() === today.getMonth() && d.getDate() === today.getDate();
  return sameDay ? time : `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${time}`;
}

/** A duration in whole seconds, rounded up, never negative. */
export function wholeSeconds(ms: number): number {
  return Math.max(0, Math.ceil(ms / 1000));
}

/** Whole seconds until `at`, rounded up, never negative. */
export function secondsUntil(at: number, now: number): number {
  return wholeSeconds(at - now);
}

/** "the limit resets at 14:03:12 (in 42s)" */
export function resetPhrase(at: number, now: number): string {
  return `the limit resets at ${formatInstant(at, now)} (in ${secondsUntil(at, now)}s)`;
}

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
