// Transport failures: what each means, and the typed error. Apart from exchange.ts so that code which
// only recognises the error (bulk seeding, retry policy) does not load the HTTP transport.
import { NetworkError } from '../errors/errors.js';
import { redactProxyUrl, type ProxyEndpoint } from './proxy.js';

/** The code of a connection attempt that got no answer in time on the node:http engine (nothing was sent). */
export const CONNECT_TIMED_OUT = 'ERR_PETSTORE_CONNECT_TIMEOUT';

/**
 * Failures before any byte of the request leaves: 'transient' ones may go away (worth a retry, even for
 * a POST), 'permanent' ones will not. TLS failures are permanent too. (ECONNABORTED can come after.)
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

/** Whether a failure with this code surely sent nothing, and if so whether it may go away. */
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

/** A failure while the body was read: the cause keeps its own code. */
export function cutShort(cause: unknown): Error {
  return Object.assign(new Error('the connection closed before the whole response arrived', { cause }), { code: RESPONSE_CUT_SHORT });
}

/** A certificate or TLS failure code: retrying will not fix it, and nothing was sent. */
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

interface Described {
  message: string;
  sent: boolean;
}

type Meaning = (host: string, hostname: string) => Described;
const refused: Meaning = (host) => ({ message: `could not connect to ${host}: connection refused`, sent: false });
const unresolved: Meaning = (_host, hostname) => ({ message: `could not resolve host ${hostname}`, sent: false });
const reset: Meaning = (host) => ({ message: `connection to ${host} was reset`, sent: true });
const noConnection: Meaning = (host) => ({ message: `could not connect to ${host}: no answer to the connection attempt (timed out)`, sent: false });
const cut: Meaning = (host) => ({ message: `connection to ${host} closed before the whole response arrived`, sent: true });

/** What the common codes mean for a direct request. */
const DIRECT: Record<string, Meaning> = {
  ECONNREFUSED: refused,
  ENOTFOUND: unresolved,
  EAI_AGAIN: unresolved,
  ECONNRESET: reset,
  EPIPE: reset,
  UND_ERR_SOCKET: reset,
  UND_ERR_CONNECT_TIMEOUT: noConnection,
  [CONNECT_TIMED_OUT]: noConnection,
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: cut,
  [RESPONSE_CUT_SHORT]: cut,
};

/** Whether the connection closed before any byte of the answer (a reset, not a response cut short). */
export function closedUnanswered(error: unknown): boolean {
  const code = causeCode(error);
  return code !== undefined && Object.hasOwn(DIRECT, code) && DIRECT[code] === reset;
}

/** The one-line message for a failed exchange, and whether the request may have reached the server. */
export function describeTransportError(error: unknown, url: string, proxy: ProxyEndpoint | undefined): Described {
  return proxy ? throughProxy(error, url, proxy) : direct(error, url);
}

function direct(error: unknown, url: string): Described {
  const code = causeCode(error);
  const { host, hostname } = new URL(url);
  const known = code !== undefined && Object.hasOwn(DIRECT, code) ? DIRECT[code] : undefined;
  if (known) return known(host, hostname);
  if (isTlsCode(code)) return { message: `TLS error talking to ${host} (${code})`, sent: false };
  const notHttp = parserFailure(error, code);
  if (notHttp !== undefined) return { message: `the answer from ${host} is not HTTP/1.1${notHttp ? ` (${notHttp})` : ''}`, sent: true };
  return {
    message: `request to ${host} failed: ${(error as Error)?.message ?? String(error)}${code ? ` (${code})` : ''}`,
    sent: notSentFailure(code) === undefined,
  };
}

/** Failures to reach the proxy, or refusals from it, name the proxy; others are the direct ones, through it. */
function throughProxy(error: unknown, url: string, proxy: ProxyEndpoint): Described {
  const code = causeCode(error);
  const { host } = new URL(url);
  const via = `proxy ${redactProxyUrl(proxy.uri)} (from ${proxy.source})`;
  if (code === 'ECONNREFUSED') return { message: `could not connect to ${via}: connection refused`, sent: false };
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return { message: `could not resolve the host of ${via}`, sent: false };
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return { message: `could not connect to ${via}: timed out`, sent: false };
  const status = /Proxy response \((\d{3})\)|\((407)\)/.exec((error as Error)?.message ?? String(error));
  if (status) {
    const n = status[1] ?? status[2];
    const why = n === '407' ? `; it wants credentials: put them in ${proxy.source} (http://user:password@host:port)` : '';
    return { message: `${via} refused the request to ${host} (HTTP ${n})${why}`, sent: false };
  }
  if (code === 'UND_ERR_PRX_TLS' || isTlsCode(code)) return { message: `TLS error talking to ${host} through ${via} (${code})`, sent: false };
  const { message, sent } = direct(error, url);
  return { message: `${message} (through ${via})`, sent };
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
