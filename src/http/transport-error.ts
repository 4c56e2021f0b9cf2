// Apart from client.ts so that code which only recognises the error (bulk seeding, retry
// policy) does not load undici: a --dry-run never needs it.
import { NetworkError } from '../errors/errors.js';

/** Thrown when the transport failed; `sent` tells whether the request may have reached the server. */
export class TransportError extends NetworkError {
  constructor(
    message: string,
    readonly sent: boolean,
    readonly timedOut: boolean,
    cause?: unknown,
  ) {
    super(message, { code: timedOut ? 'timeout' : 'network', cause });
    this.name = 'TransportError';
  }
}
