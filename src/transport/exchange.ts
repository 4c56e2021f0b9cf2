// One HTTP exchange with the API, through node:http or undici: authentication, int64-exact JSON, a
// deadline covering connect and the whole body (--timeout), Ctrl-C, the --debug trace, typed errors.
import { STATUS_CODES } from 'node:http';
import type { Dispatcher } from 'undici';
import { firstValue } from '../wire/headers.js';
import { isSafeMethod, type HttpMethod } from './method.js';
import { describeTransportError, TransportError } from './errors.js';
import { Exchange, type BufferedExchange, type ExchangeOptions } from './undici-exchange.js';
import { NodeAgents, nodeExchange } from './node-http.js';
import { CONNECT_TIMEOUT_MS, timerMs } from './timeouts.js';
import { Redactor } from '../output/redact.js';
import { CliError, InterruptedError, MalformedResponseError } from '../errors/errors.js';
import { parseJson, stringifyJson } from '../json/int64.js';
import { escapeControl } from '../output/text.js';
import type { Clock } from '../time/clock.js';
import { proxyFor, proxySecrets, redactProxyUrl, type ProxyEndpoint, type ProxySettings } from './proxy.js';
import { quotaFromHeaders, type Quota } from '../ratelimit/quota.js';

export type { HttpMethod } from './method.js';

export interface ApiRequest {
  method: HttpMethod;
  /** Below the base URL, starting with "/" (e.g. "/pets"). */
  path: string;
  query?: Record<string, string | number | bigint | undefined>;
  /** Serialised as exact-int64 JSON. */
  body?: unknown;
  /** Already-serialised body (petstore api --input). */
  rawBody?: string;
  headers?: Record<string, string>;
}

export interface ApiResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body as text (capped, see MAX_BODY_BYTES). */
  text: string;
  /** The parsed body when it is JSON, else undefined. */
  json: unknown;
  /** True when the body was JSON and parsed. */
  isJson: boolean;
  quota: Quota | undefined;
  url: string;
  durationMs: number;
}

export interface ClientOptions {
  baseUrl: string;
  apiKey: string;
  /** Other secrets to mask in the trace and in messages (the other stored keys). */
  secrets?: readonly string[] | undefined;
  userAgent: string;
  timeoutMs: number;
  clock: Clock;
  /** Aborted on Ctrl-C. */
  signal?: AbortSignal;
  /** An undici dispatcher (tests: MockAgent). Without one, node:http sends, or undici when a proxy is set or `bulk` asks. */
  dispatcher?: Dispatcher;
  /** Many requests to come, at most `connections` at once (bulk seeding): undici, whose load they repay. */
  bulk?: { connections: number } | undefined;
  /** Proxy settings from the environment (src/transport/proxy.ts); ignored when dispatcher is given, except in messages. */
  proxy?: ProxySettings | undefined;
  /** How long a new connection may take (default CONNECT_TIMEOUT_MS, both engines). */
  connectTimeoutMs?: number | undefined;
  /** Receives the request trace (--debug): never the key, nor proxy credentials. */
  debug?: ((line: string) => void) | undefined;
  /** Receives notes on header values that are ignored (--debug), with or without the trace. */
  note?: ((line: string) => void) | undefined;
}

/** What the CLI will buffer of one response body. */
export const MAX_BODY_BYTES = 16 * 1024 * 1024;

/** How much of a request or response body the --debug trace shows. */
export const DEBUG_BODY_CHARS = 500;

/** Response headers worth showing in the --debug trace. */
const TRACED_RESPONSE_HEADERS = /^(content-type|content-length|location|retry-after|x-ratelimit-.*|deprecation|sunset|link|www-authenticate)$/i;

function requestUrl(baseUrl: string, path: string, query?: ApiRequest['query']): URL {
  const url = new URL(baseUrl + path);
  for (const [k, v] of Object.entries(query ?? {})) {
    if (v !== undefined) url.searchParams.set(k, String(v));
  }
  return url;
}

/** One exchange under way on either engine; `written` is false while undici says nothing was written, undefined on node:http. */
type LiveExchange = Pick<Exchange, 'done' | 'abort'> & { readonly written: boolean | undefined };

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException('This operation was aborted', 'AbortError');
}

/** A body for the trace: control characters escaped, cut after DEBUG_BODY_CHARS. */
export function traceBody(text: string, max = DEBUG_BODY_CHARS): string {
  const cut = text.length > max ? `${text.slice(0, max)}... (${text.length - max} more characters)` : text;
  return escapeControl(cut);
}

function bodyTooLarge(): MalformedResponseError {
  return new MalformedResponseError(`response body exceeds ${MAX_BODY_BYTES / 1024 / 1024} MiB; refusing to buffer it`, {
    code: 'body_too_large',
  });
}

/** The parsed body, when it is labelled JSON (or not labelled at all) and parses. */
function jsonOf(res: BufferedExchange): { value: unknown } | undefined {
  const type = firstValue(res.headers['content-type']);
  if (res.text.length === 0 || (type !== undefined && !/\bjson\b/i.test(type))) return undefined;
  try {
    return { value: parseJson(res.text) };
  } catch {
    return undefined;
  }
}

/** EnvHttpProxyAgent configured from the given settings only (never from process.env), else a keep-alive Agent. */
export async function createDispatcher(o: Pick<ClientOptions, 'proxy' | 'timeoutMs' | 'bulk' | 'connectTimeoutMs'>): Promise<Dispatcher> {
  // Loaded only here. Its default export: the bundle gives a dynamically imported CommonJS module no named exports.
  const { Agent, EnvHttpProxyAgent } = (await import('undici')).default;
  // undici's own header and body timeouts (300 s) must never beat --timeout, which ends every request
  // with a clear message; they stay as a safety net just behind it.
  const safetyNetMs = Math.min(2 ** 31 - 1, timerMs(o.timeoutMs) + 5000);
  const base = {
    keepAliveTimeout: 10_000,
    // undici hands over a response before its connection is free again, so a request sent right
    // after one finishes would open another connection: at most as many as requests at once.
    ...(o.bulk ? { connections: o.bulk.connections } : {}),
    headersTimeout: safetyNetMs,
    bodyTimeout: safetyNetMs,
    connect: { timeout: o.connectTimeoutMs ?? CONNECT_TIMEOUT_MS },
  };
  const settings = o.proxy;
  if (!settings) return new Agent(base);
  return new EnvHttpProxyAgent({
    ...base,
    // Empty strings, not undefined: undefined would make undici read process.env.
    httpProxy: settings.http?.uri ?? '',
    httpsProxy: settings.https?.uri ?? '',
    noProxy: settings.noProxy,
  });
}

export class HttpTransport {
  readonly #opts: ClientOptions;
  #dispatcher: Promise<Dispatcher> | undefined;
  /** node:http's agents, when neither a dispatcher, a proxy nor `bulk` asks for undici. */
  readonly #agents: NodeAgents | undefined;
  /** Masks the key and proxy credentials. */
  readonly #redactor: Redactor;
  #tracedEngine = false;

  constructor(opts: ClientOptions) {
    this.#opts = opts;
    this.#dispatcher = opts.dispatcher && Promise.resolve(opts.dispatcher);
    this.#agents = opts.dispatcher || opts.proxy || opts.bulk ? undefined : new NodeAgents();
    this.#redactor = new Redactor([opts.apiKey, ...(opts.secrets ?? []), ...proxySecrets(opts.proxy)].filter((s) => s.length > 0));
  }

  get baseUrl(): string {
    return this.#opts.baseUrl;
  }

  /** One exchange: the answer, or the typed error (#fail). */
  async once(req: ApiRequest): Promise<ApiResponse> {
    const url = requestUrl(this.#opts.baseUrl, req.path, req.query);
    const body = req.rawBody ?? (req.body === undefined ? undefined : stringifyJson(req.body));
    const headers = {
      accept: 'application/json',
      'user-agent': this.#opts.userAgent,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...req.headers,
      authorization: `Bearer ${this.#opts.apiKey}`,
    };
    const proxy = proxyFor(this.#opts.proxy, url.href);
    this.#traceRequest(req.method, url.href, headers, body, proxy);
    const started = this.#opts.clock.now();
    const x = this.#start(url, { method: req.method, headers, body, maxBodyBytes: MAX_BODY_BYTES, tooLarge: bodyTooLarge });
    try {
      return this.#answer(await this.#run(x), url.href, started);
    } catch (error) {
      const e = this.#fail(error, req, url.href, proxy, x.written);
      this.#trace(`< failed after ${Math.round(this.#opts.clock.now() - started)} ms: ${e.message}`);
      throw e;
    }
  }

  /** Starts the exchange on its engine; interrupted already, nothing starts. */
  #start(url: URL, o: ExchangeOptions): LiveExchange {
    const outer = this.#opts.signal;
    if (outer?.aborted) return { done: Promise.reject(abortReason(outer)), written: false, abort: () => {} };
    if (this.#agents) return nodeExchange(url, o, this.#agents, this.#opts.connectTimeoutMs ?? CONNECT_TIMEOUT_MS);
    const x = new Exchange(o);
    this.#dispatcher ??= createDispatcher(this.#opts);
    this.#dispatcher.then(
      (d) => x.start(d, url.origin, `${url.pathname}${url.search}`),
      (error: unknown) => x.abort(error instanceof Error ? error : new Error(String(error))),
    );
    return x;
  }

  /** Waits for the exchange to end, or for its deadline (--timeout) or Ctrl-C (the outer signal) to end it. */
  async #run(x: LiveExchange): Promise<BufferedExchange> {
    const outer = this.#opts.signal;
    const interrupt = () => x.abort(abortReason(outer!));
    const timer = setTimeout(() => x.abort(new DOMException('the request timed out', 'TimeoutError')), timerMs(this.#opts.timeoutMs));
    outer?.addEventListener('abort', interrupt, { once: true });
    try {
      return await x.done;
    } finally {
      clearTimeout(timer);
      outer?.removeEventListener('abort', interrupt);
    }
  }

  /** The response as the layers above see it: JSON parsed (int64-exact) when it is JSON, the quota read. */
  #answer(res: BufferedExchange, url: string, started: number): ApiResponse {
    const received = this.#opts.clock.now();
    this.#traceResponse(res, received - started);
    const json = jsonOf(res);
    const note = this.#opts.note && ((line: string) => this.#opts.note?.(this.#redactor.text(line)));
    return {
      status: res.statusCode,
      headers: res.headers,
      text: res.text,
      json: json?.value,
      isJson: json !== undefined,
      quota: quotaFromHeaders(res.headers, received, note),
      url,
      durationMs: received - started,
    };
  }

  /** The typed error for a failed exchange; `written` is false when undici never started the request. */
  #fail(error: unknown, req: ApiRequest, url: string, proxy: ProxyEndpoint | undefined, written: boolean | undefined): Error {
    // Ctrl-C's InterruptedError does not yet say what became of the request.
    if (this.#opts.signal?.aborted) {
      return new InterruptedError(
        isSafeMethod(req.method) || written === false
          ? 'interrupted'
          : `interrupted while ${req.method} ${req.path} was in flight: the server may or may not have processed it; check before retrying`,
      );
    }
    if (error instanceof CliError) return error;
    if ((error as Error | undefined)?.name === 'TimeoutError') {
      const s = this.#opts.timeoutMs / 1000;
      const via = proxy ? ` through proxy ${redactProxyUrl(proxy.uri)}` : '';
      const waiting = written === false ? ' (still waiting for a connection; not sent)' : '';
      return new TransportError(`request timed out after ${s}s (--timeout ${s}): ${req.method} ${url}${via}${waiting}`, written !== false, true, error);
    }
    const { message, sent } = describeTransportError(error, url, proxy);
    return new TransportError(this.#redactor.text(message), sent && written !== false, false, error);
  }

  /** One trace line (--debug), masked by the caller before any cut. */
  #trace(line: string): void {
    this.#opts.debug?.(line);
  }

  /** Which dispatcher sends the requests, named once before the first request. */
  #engineName(): string {
    const o = this.#opts;
    if (this.#agents) return 'node:http (keep-alive)';
    if (o.dispatcher) return 'undici (injected dispatcher)';
    const why = [o.proxy ? 'proxy settings from the environment' : 'bulk'];
    if (o.bulk) why.push(`at most ${o.bulk.connections} connections`);
    return `undici (${why.join(', ')})`;
  }

  #traceRequest(method: string, url: string, headers: Record<string, string>, body: string | undefined, proxy: ProxyEndpoint | undefined): void {
    if (!this.#opts.debug) return;
    if (!this.#tracedEngine) this.#trace(`* HTTP client: ${this.#engineName()}`);
    this.#tracedEngine = true;
    const r = this.#redactor;
    this.#trace(`> ${method} ${escapeControl(r.text(url))}`);
    if (proxy) this.#trace(`> (through proxy ${redactProxyUrl(proxy.uri)}, from ${proxy.source})`);
    for (const [name, value] of Object.entries(headers)) this.#trace(`> ${name}: ${escapeControl(r.header(name, value))}`);
    if (body !== undefined) this.#trace(`> ${traceBody(r.text(body))}`);
  }

  #traceResponse(res: BufferedExchange, ms: number): void {
    if (!this.#opts.debug) return;
    this.#trace(`< ${res.statusCode} ${res.statusText || STATUS_CODES[res.statusCode] || ''} (${Math.round(ms)} ms)`.replace('  (', ' ('));
    for (const [name, value] of Object.entries(res.headers)) {
      if (TRACED_RESPONSE_HEADERS.test(name))
        this.#trace(`< ${name}: ${escapeControl(this.#redactor.header(name, Array.isArray(value) ? value.join(', ') : (value ?? '')))}`);
    }
    if (res.text.length > 0) this.#trace(`< ${traceBody(this.#redactor.text(res.text))}`);
  }

  async close(): Promise<void> {
    this.#agents?.destroy();
    if (!this.#opts.dispatcher && this.#dispatcher) await (await this.#dispatcher).close();
  }
}
