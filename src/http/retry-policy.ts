// Which outcomes of one exchange are worth repeating.
//
//                              GET/HEAD/OPTIONS        POST (and every other method)
//   429                        retry (Retry-After)     retry (Retry-After): not processed
//   502, 503, 504              retry (backoff)         no: it may have been processed
//   refused / not connected    retry (backoff)         retry (backoff): never sent
//   reset, timeout after send  retry (backoff)         no: outcome unknown, reported as such
//   DNS name not found, TLS    no (will not change)    no
//   any other status           no                      no

import { causeCode, notSentFailure, TransportError } from '../transport/errors.js';
import { isSafeMethod, type HttpMethod } from '../transport/method.js';

export type Outcome = { status: number } | { error: unknown };

export type Verdict =
  /** The answer stands (success or a status not worth repeating). */
  | { action: 'return' }
  /** Send again after a wait: the Retry-After gate for 429, backoff otherwise. */
  | { action: 'retry'; wait: 'rate_limit' | 'backoff' }
  /** The request may or may not have been processed; repeating could duplicate it. */
  | { action: 'unknown' }
  /** A fault that repeating will not fix: rethrow it. */
  | { action: 'throw' };

const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);

const RETURN: Verdict = { action: 'return' };
const THROW: Verdict = { action: 'throw' };
const BACKOFF: Verdict = { action: 'retry', wait: 'backoff' };

/** What to do after one attempt of `method` ended in `outcome`. */
export function retryVerdict(method: HttpMethod | string, outcome: Outcome): Verdict {
  return 'status' in outcome ? statusVerdict(method, outcome.status) : errorVerdict(method, outcome.error);
}

/** retryVerdict for an answer with this status. */
export function statusVerdict(method: HttpMethod | string, status: number): Verdict {
  if (status === 429) return { action: 'retry', wait: 'rate_limit' };
  if (RETRYABLE_STATUSES.has(status) && isSafeMethod(method)) return BACKOFF;
  return RETURN;
}

/** retryVerdict for an attempt that ended without an answer. */
function errorVerdict(method: HttpMethod | string, error: unknown): Verdict {
  if (!(error instanceof TransportError)) return THROW;
  const notSent = notSentFailure(causeCode(error));
  if (isSafeMethod(method)) return notSent === 'permanent' ? THROW : BACKOFF;
  if (error.sent || error.timedOut) return { action: 'unknown' };
  return notSent === 'transient' ? BACKOFF : THROW;
}
