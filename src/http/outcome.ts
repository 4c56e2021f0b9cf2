// The error of the retry layer that callers (pets add, bulk seeding) recognise.

import { NetworkError } from '../errors/errors.js';
import type { ApiRequest } from '../transport/exchange.js';
import type { TransportError } from '../transport/errors.js';

/** A POST failed after it may have reached the server: not retried (a duplicate), reported as "outcome unknown" (exit 7). */
export class OutcomeUnknownError extends NetworkError {
  constructor(request: ApiRequest, cause: TransportError) {
    const why = cause.timedOut ? 'no response before the timeout' : 'the connection failed after the request was sent';
    const check = request.path.startsWith('/pets') ? 'petstore pets list' : undefined;
    super(
      `the request may or may not have been processed (${why}: ${cause.message}); ` +
        (check ? `check with "${check}" before retrying` : 'check the server before retrying'),
      { code: 'outcome_unknown', cause },
    );
  }
}

export function isOutcomeUnknown(error: unknown): error is OutcomeUnknownError {
  return error instanceof OutcomeUnknownError;
}
