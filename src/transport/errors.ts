// Transport failures: what each means, and the typed error. Apart from exchange.ts so that code which only
// recognises the error (bulk seeding, retry policy) does not load the HTTP transport.
import { NetworkError } from '../errors/errors.js';
import { type ProxyEndpoint, redactProxyUrl } from './proxy.js';

/** A connection attempt on the node:http engine that got no answer in time (nothing was sent). */
export const CONNECT_TIMED_OUT = 'ERR_PETSTORE_CONNECT_TIMEOUT';
/** A response whose connection closed before the whole body arrived (the request was sent). */
const RESPONSE_CUT_SHORT = 'ERR_PETSTORE_RESPONSE_CUT_SHORT';

/** Failures before any byte leaves: 'transient' ones may go away (worth a retry, even for a POST). TLS ones are permanent. */
const NOT_SENT: ReadonlyMap<string, 'transient' | 'permanent'> = new Map([
  ['ECONNREFUSED', 'transient'],
  ['UND_ERR_CONNECT_TIMEOUT', 'transient'],
  [CONNECT_TIMED_OUT, 'transient'],
  ['EAI_AGAIN', 'transient'],
  ['ENETUNREACH', 'transient'],
  ['EHOSTUNREACH', 'transient'],
  ['ENOTFOUND', 'permanent'],
]);

const isTlsCode = (code: string | undefined) => code !== undefined && /CERT|SSL|TLS/.test(code);

/** Whether a failure with this code surely sent nothing, and if so whether it may go away. */
export function notSentFailure(code: string | undefined): 'transient' | 'permanent' | undefined {
  if (code === undefined) return undefined;
  return NOT_SENT.get(code) ?? (isTlsCode(code) ? 'permanent' : undefined);
}

/** The transport failed; `sent` tells whether the request may have reached the server. */
export class TransportError extends NetworkError {
  constructor(
    message: string,
    readonly sent: boolean,
    readonly timedOut: boolean,
    cause?: unknown,
  ) {
    super(message, { code: timedOut ? 'timeout' : 'network', cause });
  }
}

/** A failure while the body was read: the cause keeps its own code. */
export function cutShort(cause: unknown): Error {
  return Object.assign(new Error('the connection closed before the whole response arrived', { cause }), { code: RESPONSE_CUT_SHORT });
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

type Described = { message: string; sent: boolean };

const refused = (host: string) => ({ message: `could not connect to ${host}: connection refused`, sent: false });
const reset = (host: string) => ({ message: `connection to ${host} was reset`, sent: true });
const noConnection = (host: string) => ({ message: `could not connect to ${host}: no answer to the connection attempt (timed out)`, sent: false });
const cut = (host: string) => ({ message: `connection to ${host} closed before the whole response arrived`, sent: true });
const unresolved = (_host: string, hostname: string) => ({ message: `could not resolve host ${hostname}`, sent: false });

/** What the common codes mean for a direct request. */
const DIRECT: Record<string, (host: string, hostname: string) => Described> = {
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

function direct(error: unknown, url: string): Described {
  const code = causeCode(error);
  const { host, hostname } = new URL(url);
  if (code !== undefined && Object.hasOwn(DIRECT, code)) return DIRECT[code]!(host, hostname);
  if (isTlsCode(code)) return { message: `TLS error talking to ${host} (${code})`, sent: false };
  // node:http: "Parse Error: <reason>" with an HPE_* code; undici: HTTPParserError "... (<reason>)", often without a code.
  const e = error as { name?: unknown; message?: unknown } | undefined;
  if (code?.startsWith('HPE_') || e?.name === 'HTTPParserError') {
    const text = typeof e?.message === 'string' ? e.message : '';
    const why = (/\(([^()]*)\)\s*$/.exec(text)?.[1] ?? text.replace(/^Parse Error:\s*/, '')).trim();
    return { message: `the answer from ${host} is not HTTP/1.1${why ? ` (${why})` : ''}`, sent: true };
  }
  const message = `request to ${host} failed: ${(error as Error)?.message ?? String(error)}${code ? ` (${code})` : ''}`;
  return { message, sent: notSentFailure(code) === undefined };
}

/**
 * The one-line message for a failed exchange, and whether the request may have reached the server. Failures to
 * reach the proxy, or refusals from it, name the proxy; others are the direct ones, through it.
 */
export function describeTransportError(error: unknown, url: string, proxy: ProxyEndpoint | undefined): Described {
  if (!proxy) return direct(error, url);
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
  if (isTlsCode(code)) return { message: `TLS error talking to ${host} through ${via} (${code})`, sent: false };
  const { message, sent } = direct(error, url);
  return { message: `${message} (through ${via})`, sent };
}
