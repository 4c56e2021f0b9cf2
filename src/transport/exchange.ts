// One HTTP exchange with the API: authentication, int64-exact JSON, a deadline over connect and the whole
// body (--timeout), Ctrl-C, the --debug trace with secrets masked, typed errors.
import { STATUS_CODES } from 'node:http';
import type { Dispatcher } from 'undici';
import { CliError, InterruptedError } from '../errors/errors.js';
import type { HttpMethod } from '../flag-values.js';
import { parseJson, stringifyJson } from '../json/int64.js';
import { Redactor } from '../output/redact.js';
import { escapeControl } from '../output/text.js';
import { quotaFromHeaders, type Quota } from '../ratelimit/quota.js';
import { MAX_TIMER_MS, type Clock } from '../time/clock.js';
import { firstValue } from '../wire/headers.js';
import { describeTransportError, TransportError } from './errors.js';
import { NodeAgents, nodeExchange } from './node-http.js';
import { proxyFor, proxySecrets, redactProxyUrl, type ProxyEndpoint, type ProxySettings } from './proxy.js';
import { type BufferedExchange, Exchange, type ExchangeOptions } from './undici-exchange.js';

export type { HttpMethod };

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
  /** At most MAX_BODY_BYTES; `json` is its parsed value when `isJson`. */
  text: string;
  json: unknown;
  isJson: boolean;
  quota: Quota | undefined;
}

export interface ClientOptions {
  baseUrl: string;
  apiKey: string;
  /** Other secrets to mask in the trace and in messages (the other stored keys). */
  secrets?: readonly string[] | undefined;
  userAgent: string;
  timeoutMs: number;
  clock: Clock;
  signal?: AbortSignal;
  /** An undici dispatcher (tests: MockAgent). Without one, node:http sends, or undici for a proxy or `bulk`. */
  dispatcher?: Dispatcher;
  /** Many requests to come, at most `connections` at once (bulk seeding): undici. */
  bulk?: { connections: number } | undefined;
  /** From the environment (proxy.ts); with a dispatcher, used in messages only. */
  proxy?: ProxySettings | undefined;
  connectTimeoutMs?: number | undefined;
  /** The --debug trace: never the key, nor proxy credentials. */
  debug?: ((line: string) => void) | undefined;
  /** Notes on header values that are ignored (--debug), with or without the trace. */
  note?: ((line: string) => void) | undefined;
}

export const DEBUG_BODY_CHARS = 500;
/** undici's default, on both engines. */
const CONNECT_TIMEOUT_MS = 10_000;
const TRACED_RESPONSE_HEADERS = /^(content-type|content-length|location|retry-after|x-ratelimit-.*|deprecation|sunset|link|www-authenticate)$/i;

/** Methods whose repetition cannot change anything on the server. */
export function isSafeMethod(method: HttpMethod | string): boolean {
  const m = method.toUpperCase();
  return m === 'GET' || m === 'HEAD' || m === 'OPTIONS';
}

/** A --timeout in ms as a timer accepts it: a whole number from 1 to MAX_TIMER_MS. */
export function timerMs(ms: number): number {
  return Number.isFinite(ms) ? Math.min(MAX_TIMER_MS, Math.max(1, Math.ceil(ms))) : MAX_TIMER_MS;
}

export function traceBody(text: string, max = DEBUG_BODY_CHARS): string {
  return escapeControl(text.length > max ? `${text.slice(0, max)}... (${text.length - max} more characters)` : text);
}

/** One exchange under way on either engine; `written` is false while undici says nothing was written, undefined on node:http. */
type LiveExchange = Pick<Exchange, 'done' | 'abort'> & { readonly written: boolean | undefined };

const abortReason = (signal: AbortSignal): Error =>
  signal.reason instanceof Error ? signal.reason : new DOMException('This operation was aborted', 'AbortError');

/** EnvHttpProxyAgent configured from the given settings only (never from process.env), else a keep-alive Agent. */
export async function createDispatcher(o: Pick<ClientOptions, 'proxy' | 'timeoutMs' | 'bulk' | 'connectTimeoutMs'>): Promise<Dispatcher> {
  // The default export: the bundle gives a dynamically imported CommonJS module no named exports.
  const { Agent, EnvHttpProxyAgent } = (await import('undici')).default;
  // undici's own header and body timeouts stay just behind --timeout, whose message is clearer.
  const safetyNetMs = Math.min(MAX_TIMER_MS, timerMs(o.timeoutMs) + 5000);
  const base = {
    keepAliveTimeout: 10_000,
    // undici hands over a response before its connection is free: without a cap a bulk run opens more connections.
    ...(o.bulk ? { connections: o.bulk.connections } : {}),
    headersTimeout: safetyNetMs,
    bodyTimeout: safetyNetMs,
    connect: { timeout: o.connectTimeoutMs ?? CONNECT_TIMEOUT_MS },
  };
  const p = o.proxy;
  // Empty strings, not undefined: undefined would make undici read process.env.
  return p ? new EnvHttpProxyAgent({ ...base, httpProxy: p.http?.uri ?? '', httpsProxy: p.https?.uri ?? '', noProxy: p.noProxy }) : new Agent(base);
}

export class HttpTransport {
  readonly #opts: ClientOptions;
  #dispatcher: Promise<Dispatcher> | undefined;
  /** node:http's agents, unless a dispatcher, a proxy or `bulk` asks for undici (which loads slower). */
  readonly #agents: NodeAgents | undefined;
  readonly #redactor: Redactor;
  #tracedEngine = false;
  /** The exchanges under way, ended by the one listener on Ctrl-C (opts.signal). */
  readonly #live = new Set<LiveExchange>();

  constructor(opts: ClientOptions) {
    this.#opts = opts;
    const outer = opts.signal;
    outer?.addEventListener('abort', () => {
      for (const x of this.#live) x.abort(abortReason(outer));
    });
    this.#dispatcher = opts.dispatcher && Promise.resolve(opts.dispatcher);
    this.#agents = opts.dispatcher || opts.proxy || opts.bulk ? undefined : new NodeAgents();
    this.#redactor = new Redactor([opts.apiKey, ...(opts.secrets ?? []), ...proxySecrets(opts.proxy)].filter((s) => s.length > 0));
  }

  get baseUrl(): string {
    return this.#opts.baseUrl;
  }

  async once(req: ApiRequest): Promise<ApiResponse> {
    const url = new URL(this.#opts.baseUrl + req.path);
    for (const [k, v] of Object.entries(req.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
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
    const x = this.#start(url, { method: req.method, headers, body });
    // Its deadline (--timeout); Ctrl-C ends it through the one listener on opts.signal (#live).
    const timer = setTimeout(() => x.abort(new DOMException('the request timed out', 'TimeoutError')), timerMs(this.#opts.timeoutMs));
    this.#live.add(x);
    try {
      return this.#answer(await x.done, started);
    } catch (error) {
      const e = this.#fail(error, req, url.href, proxy, x.written);
      this.#opts.debug?.(`< failed after ${Math.round(this.#opts.clock.now() - started)} ms: ${e.message}`);
      throw e;
    } finally {
      clearTimeout(timer);
      this.#live.delete(x);
    }
  }

  /** Starts the exchange on its engine; nothing starts once interrupted. */
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

  /** The response as the layers above see it: JSON parsed when labelled JSON (or not labelled) and valid, the quota read. */
  #answer(res: BufferedExchange, started: number): ApiResponse {
    const received = this.#opts.clock.now();
    this.#traceResponse(res, received - started);
    const type = firstValue(res.headers['content-type']);
    let json: { value: unknown } | undefined;
    if (res.text.length > 0 && (type === undefined || /\bjson\b/i.test(type))) {
      try {
        json = { value: parseJson(res.text) };
      } catch {}
    }
    const note = this.#opts.note && ((line: string) => this.#opts.note?.(this.#redactor.text(line)));
    const quota = quotaFromHeaders(res.headers, received, note);
    return {
      status: res.statusCode,
      headers: res.headers,
      text: res.text,
      json: json?.value,
      isJson: json !== undefined,
      quota,
    };
  }

  #fail(error: unknown, req: ApiRequest, url: string, proxy: ProxyEndpoint | undefined, written: boolean | undefined): Error {
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

  #traceRequest(method: string, url: string, headers: Record<string, string>, body: string | undefined, proxy: ProxyEndpoint | undefined): void {
    const trace = this.#opts.debug;
    if (!trace) return;
    const o = this.#opts;
    if (!this.#tracedEngine) {
      const why = o.proxy ? 'proxy settings from the environment' : 'bulk';
      const undici = o.dispatcher ? 'injected dispatcher' : o.bulk ? `${why}, at most ${o.bulk.connections} connections` : why;
      trace(`* HTTP client: ${this.#agents ? 'node:http (keep-alive)' : `undici (${undici})`}`);
      this.#tracedEngine = true;
    }
    const r = this.#redactor;
    trace(`> ${method} ${escapeControl(r.text(url))}`);
    if (proxy) trace(`> (through proxy ${redactProxyUrl(proxy.uri)}, from ${proxy.source})`);
    for (const [name, value] of Object.entries(headers)) trace(`> ${name}: ${escapeControl(r.header(name, value))}`);
    if (body !== undefined) trace(`> ${traceBody(r.text(body))}`);
  }

  #traceResponse(res: BufferedExchange, ms: number): void {
    const trace = this.#opts.debug;
    if (!trace) return;
    const r = this.#redactor;
    trace(`< ${res.statusCode} ${res.statusText || STATUS_CODES[res.statusCode] || ''} (${Math.round(ms)} ms)`.replace('  (', ' ('));
    for (const [name, value] of Object.entries(res.headers)) {
      if (TRACED_RESPONSE_HEADERS.test(name)) trace(`< ${name}: ${escapeControl(r.header(name, Array.isArray(value) ? value.join(', ') : (value ?? '')))}`);
    }
    if (res.text.length > 0) trace(`< ${traceBody(r.text(res.text))}`);
  }

  async close(): Promise<void> {
    this.#agents?.destroy();
    if (!this.#opts.dispatcher && this.#dispatcher) await (await this.#dispatcher).close();
  }
}
