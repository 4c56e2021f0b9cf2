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
import { type HttpMethod, isSafeMethod } from '../transport/exchange.js';

/** 'unknown': the request may have been processed, repeating could duplicate it; 'throw': rethrow the fault. */
export type Verdict = { action: 'return' } | { action: 'unknown' } | { action: 'throw' } | { action: 'retry'; wait: 'rate_limit' | 'backoff' };

const BACKOFF: Verdict = { action: 'retry', wait: 'backoff' };

/** What to do after one attempt of `method` ended in `outcome`. */
export function retryVerdict(method: HttpMethod | string, outcome: { status: number } | { error: unknown }): Verdict {
  return 'status' in outcome ? statusVerdict(method, outcome.status) : errorVerdict(method, outcome.error);
}

export function statusVerdict(method: HttpMethod | string, status: number): Verdict {
  if (status === 429) return { action: 'retry', wait: 'rate_limit' };
  if ((status === 502 || status === 503 || status === 504) && isSafeMethod(method)) return BACKOFF;
  return { action: 'return' };
}

function errorVerdict(method: HttpMethod | string, error: unknown): Verdict {
  if (!(error instanceof TransportError)) return { action: 'throw' };
  const notSent = notSentFailure(causeCode(error));
  if (isSafeMethod(method)) return notSent === 'permanent' ? { action: 'throw' } : BACKOFF;
  if (error.sent || error.timedOut) return { action: 'unknown' };
  return notSent === 'transient' ? BACKOFF : { action: 'throw' };
}
