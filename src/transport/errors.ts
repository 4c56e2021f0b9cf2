// Apart from client.ts so that code which only recognises the error (bulk seeding, retry
// policy) does not load the HTTP transport: a --dry-run never needs it.
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

/** The code of a response whose connection closed before the whole body arrived (the request was sent). */
export const RESPONSE_CUT_SHORT = 'ERR_PETSTORE_RESPONSE_CUT_SHORT';

/** A failure while the body was read, for either HTTP client: the cause keeps its own code. */
export function cutShort(cause: unknown): Error {
  return Object.assign(new Error('the connection closed before the whole response arrived', { cause }), { code: RESPONSE_CUT_SHORT });
}

/** A certificate or TLS failure code (Node's and undici's): retrying will not fix it, and nothing was sent. */
export function isTlsCode(code: string | undefined): boolean {
  return code !== undefined && /CERT|SSL|TLS/.test(code);
}

/** The errno-style code of an error or of its causes (a TransportError's own code is ours, not the cause's). */
export function causeCode(error: unknown): string | undefined {
  let e: unknown = error;
  for (let i = 0; i < 5 && e && typeof e === 'object'; i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (i > 0 || !(e instanceof TransportError))) return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}
