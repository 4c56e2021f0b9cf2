// Transport failures: what each means, once for both engines (node:http and undici), and the
// typed error. Apart from exchange.ts so that code which only recognises the error (bulk seeding,
// retry policy) does not load the HTTP transport: a --dry-run never needs it.
import { NetworkError } from '../errors/errors.js';
import { redactProxyUrl, type ProxyEndpoint } from './proxy.js';

/** The code of a connection attempt that got no answer in time on the node:http engine (nothing was sent). */
export const CONNECT_TIMED_OUT = 'ERR_PETSTORE_CONNECT_TIMEOUT';

/**
 * Failures that happen before any byte of the request leaves, so it was surely not sent, whatever
 * the method: 'transient' ones may go away (worth a retry, even for a POST), 'permanent' ones will
 * not. Both engines' codes are here: undici's UND_ERR_CONNECT_TIMEOUT and node:http's
 * CONNECT_TIMED_OUT mean the same thing. TLS failures (isTlsCode) are permanent and not sent too.
 * ECONNABORTED is not here, although the retry policy's old copy of this list had it: it can come
 * after the request was written, so it does not prove "not sent".
 */
const NOT_SENT: ReadonlyMap<string, 'transient' | 'permanent'> = new Map([
  ['ECONNREFUSED', 'transient'],
  ['UND_ERR_CONNECT_TIMEOUT', 'transient'],
  [CONNECT_TIMED_OUT, 'transient'],
  ['EAI_AGAIN', 'transient'],
  ['ENETUNREACH', 'transient'],
  ['EHOSTUNREACH', 'transient'],
  ['ENOTFOUND', 'permanent'],
]);

/** Whether a failure with this code surely left nothing on the wire, and if so whether it may go away; undefined when the request may have been sent. */
export function notSentFailure(code: string | undefined): 'transient' | 'permanent' | undefined {
  if (code === undefined) return undefined;
  return NOT_SENT.get(code) ?? (isTlsCode(code) ? 'permanent' : undefined);
}

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
const RESPONSE_CUT_SHORT = 'ERR_PETSTORE_RESPONSE_CUT_SHORT';

/** A failure while the body was read, for either HTTP client: the cause keeps its own code. */
export function cutShort(cause: unknown): Error {
  return Object.assign(new Error('the connection closed before the whole response arrived', { cause }), { code: RESPONSE_CUT_SHORT });
}

/** A certificate or TLS failure code (Node's and undici's): retrying will not fix it, and nothing was sent. */
function isTlsCode(code: string | undefined): boolean {
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

/** The one-line message for a failed exchange, and whether the request may have reached the server. */
export function describeTransportError(error: unknown, url: string, proxy: ProxyEndpoint | undefined): { message: string; sent: boolean } {
  const code = causeCode(error);
  const host = new URL(url).host;
  if (proxy) {
    const via = `proxy ${redactProxyUrl(proxy.uri)} (from ${proxy.source})`;
    const text = (error as Error)?.message ?? String(error);
    switch (code) {
      case 'ECONNREFUSED':
        return { message: `could not connect to ${via}: connection refused`, sent: false };
      case 'ENOTFOUND':
      case 'EAI_AGAIN':
        return { message: `could not resolve the host of ${via}`, sent: false };
      case 'UND_ERR_CONNECT_TIMEOUT':
        return { message: `could not connect to ${via}: timed out`, sent: false };
      default: {
        const status = /Proxy response \((\d{3})\)|\((407)\)/.exec(text);
        if (status) {
          const n = status[1] ?? status[2];
          const why = n === '407' ? `; it wants credentials: put them in ${proxy.source} (http://user:password@host:port)` : '';
          return { message: `${via} refused the request to ${host} (HTTP ${n})${why}`, sent: false };
        }
        if (code === 'UND_ERR_PRX_TLS' || isTlsCode(code)) {
          return { message: `TLS error talking to ${host} through ${via} (${code})`, sent: false };
        }
        const { message, sent } = describeTransportError(error, url, undefined);
        return { message: `${message} (through ${via})`, sent };
      }
    }
  }
  switch (code) {
    case 'ECONNREFUSED':
      return { message: `could not connect to ${host}: connection refused`, sent: false };
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return { message: `could not resolve host ${new URL(url).hostname}`, sent: false };
    case 'ECONNRESET':
    case 'EPIPE':
    case 'UND_ERR_SOCKET':
      return { message: `connection to ${host} was reset`, sent: true };
    case 'UND_ERR_CONNECT_TIMEOUT':
    case CONNECT_TIMED_OUT:
      return { message: `could not connect to ${host}: no answer to the connection attempt (timed out)`, sent: false };
    case 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH':
    case RESPONSE_CUT_SHORT:
      return { message: `connection to ${host} closed before the whole response arrived`, sent: true };
    default: {
      if (isTlsCode(code)) return { message: `TLS error talking to ${host} (${code})`, sent: false };
      const notHttp = parserFailure(error, code);
      if (notHttp !== undefined) return { message: `the answer from ${host} is not HTTP/1.1${notHttp ? ` (${notHttp})` : ''}`, sent: true };
      return {
        message: `request to ${host} failed: ${(error as Error)?.message ?? String(error)}${code ? ` (${code})` : ''}`,
        sent: notSentFailure(code) === undefined,
      };
    }
  }
}

/**
 * The parser's reason when the answer was not HTTP/1.1, '' when it gave none; undefined for other
 * errors. node:http says "Parse Error: <reason>" with an HPE_* code; undici's HTTPParserError says
 * "Response does not match the HTTP/1.1 protocol (<reason>)", often without a code.
 */
function parserFailure(error: unknown, code: string | undefined): string | undefined {
  const e = error as { name?: unknown; message?: unknown } | undefined;
  if (!code?.startsWith('HPE_') && e?.name !== 'HTTPParserError') return undefined;
  const text = typeof e?.message === 'string' ? e.message : '';
  return (/\(([^()]*)\)\s*$/.exec(text)?.[1] ?? text.replace(/^Parse Error:\s*/, '')).trim();
}
