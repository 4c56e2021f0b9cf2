import { STATUS_CODES } from 'node:http';
import type { Dispatcher } from 'undici';
import { createNodeAgents, nodeRequest, type NodeAgents } from './node-http.js';
import { firstValue } from '../wire/headers.js';
import { isSafeMethod, type HttpMethod } from './method.js';
import { describeTransportError, TransportError } from './errors.js';
import { Exchange, type BufferedExchange } from './undici-exchange.js';
import { Deadlines } from './deadlines.js';
import { timerMs } from './timeouts.js';
import { Redactor } from '../output/redact.js';
import { CliError, InterruptedError, MalformedResponseError } from '../errors/errors.js';
import { parseJson, stringifyJson } from '../json/int64.js';
import { escapeControl } from '../output/text.js';
import type { Clock } from '../time/clock.js';
import { createDispatcher, proxyFor, proxySecrets, redactProxyUrl, type ProxyEndpoint, type ProxySettings } from './proxy.js';
import { quotaFromHeaders, type Quota } from '../ratelimit/quota.js';

export interface ApiRequest {
  method: HttpMethod;
  /** Path below the base URL, starting with "/" (e.g. "/pets"). */
  path: string;
  query?: Record<string, string | number | bigint | undefined>;
  /** Serialised as exact-int64 JSON. */
  body?: unknown;
  /** Already-serialised body (petstore api --input). */
  rawBody?: string;
  headers?: Record<string, string>;
  /**
   * Reads a JSON answer's text in a form the caller knows, faster than parseJson (a created pet,
   * src/pets/pet-json.ts); undefined for any other text, which parseJson then reads. Must give what
   * parseJson would.
   */
  readJson?: ((text: string) => unknown) | undefined;
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
  /** True when the request's readJson read the body: the text is in the form that reader knows. */
  known?: boolean;
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
  /** An undici dispatcher (tests: MockAgent). Without one, requests go through node:http, or undici when a proxy is set or `bulk` asks. */
  dispatcher?: Dispatcher;
  /**
   * Many requests to come, at most `connections` at once (bulk seeding): use undici even without a
   * proxy. Its dispatcher costs less CPU per request than node:http, but loading it costs more than
   * one request takes (bench/README.md).
   */
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

function buildUrl(baseUrl: string, path: string, query?: ApiRequest['query']): string {
  const url = new URL(baseUrl + path);
  for (const [k, v] of Object.entries(query ?? {})) {
    if (v !== undefined) url.searchParams.set(k, String(v));
  }
  return url.toString();
}

/** Where a request goes: the URL (messages, trace, node:http), and its origin and path (undici). */
interface Target {
  url: string;
  origin: string;
  path: string;
}

/** A path of plain segments (none "." or ".."), which the URL parser leaves as it is. */
const PLAIN_PATH = /^(\/[A-Za-z0-9_~-][A-Za-z0-9._~-]*)+$/;

/**
 * The base URL as a prefix that a plain path can be appended to as text, giving what the URL parser
 * would (checked once, here): a bulk run then parses no URL per request. Undefined when the base has a
 * query or a fragment, or resolves in a way text cannot follow.
 */
export function plainBase(baseUrl: string): { href: string; origin: string; pathname: string } | undefined {
  let probe: URL;
  try {
    probe = new URL(`${baseUrl}/x`);
  } catch {
    return undefined;
  }
  if (probe.search !== '' || probe.hash !== '' || !probe.href.endsWith('/x') || !probe.pathname.endsWith('/x')) return undefined;
  return { href: probe.href.slice(0, -2), origin: probe.origin, pathname: probe.pathname.slice(0, -2) };
}

export function target(baseUrl: string, plain: ReturnType<typeof plainBase>, req: ApiRequest): Target {
  if (plain && req.query === undefined && PLAIN_PATH.test(req.path)) {
    return { url: plain.href + req.path, origin: plain.origin, path: plain.pathname + req.path };
  }
  const url = buildUrl(baseUrl, req.path, req.query);
  const u = new URL(url);
  return { url, origin: u.origin, path: `${u.pathname}${u.search}` };
}

export type { HttpMethod } from './method.js';

/** One exchange under way: its outcome, whether it was written as far as the HTTP client tells, and how to end it. */
interface LiveExchange {
  readonly done: Promise<BufferedExchange>;
  readonly written: boolean | undefined;
  abort(reason: Error): void;
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException('This operation was aborted', 'AbortError');
}

/** A body for the trace: control characters escaped, cut after DEBUG_BODY_CHARS. */
export function traceBody(text: string, max = DEBUG_BODY_CHARS): string {
  const cut = text.length > max ? `${text.slice(0, max)}... (${text.length - max} more characters)` : text;
  return escapeControl(cut);
}

function headerText(value: string | string[] | undefined): string {
  return Array.isArray(value) ? value.join(', ') : (value ?? '');
}

function bodyTooLarge(): MalformedResponseError {
  return new MalformedResponseError(`response body exceeds ${MAX_BODY_BYTES / 1024 / 1024} MiB; refusing to buffer it`, {
    code: 'body_too_large',
  });
}

async function readCapped(body: AsyncIterable<unknown> & { destroy(): unknown }): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) {
      body.destroy();
      throw bodyTooLarge();
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function isJsonContentType(value: string | string[] | undefined): boolean {
  const v = firstValue(value);
  return v === undefined || /\bjson\b/i.test(v);
}

/**
 * One HTTP exchange with the API: authentication, int64-exact JSON, a deadline
 * covering connect and the whole body, and a typed error for transport faults.
 */
export class HttpTransport {
  readonly #opts: ClientOptions;
  /**
   * The undici dispatcher: injected (tests), or created on first use when a proxy is configured or
   * `bulk` is set (undici loads only then). Otherwise requests go through node:http with #agents.
   */
  #dispatcher: Dispatcher | Promise<Dispatcher> | undefined;
  readonly #agents: NodeAgents | undefined;
  /** Texts never to print: the key and proxy credentials. */
  readonly #redactor: Redactor;
  readonly #plainBase: ReturnType<typeof plainBase>;
  /** The dispatcher once created (no await per request). */
  #ready: Dispatcher | undefined;
  /** Exchanges in flight, each with its deadline (--timeout): Ctrl-C (the outer signal) ends them all. */
  readonly #live: Deadlines<LiveExchange>;
  /** The headers of a request without a body, and of one with a JSON body, when it adds none of its own. */
  readonly #headers: { bare: Record<string, string>; json: Record<string, string> };
  #tracedEngine = false;

  constructor(opts: ClientOptions) {
    this.#opts = opts;
    this.#dispatcher = opts.dispatcher;
    this.#agents = opts.dispatcher || opts.proxy || opts.bulk ? undefined : createNodeAgents();
    this.#redactor = new Redactor([opts.apiKey, ...(opts.secrets ?? []), ...proxySecrets(opts.proxy)].filter((s) => s.length > 0));
    this.#plainBase = plainBase(opts.baseUrl);
    this.#live = new Deadlines(timerMs(opts.timeoutMs), (x) => x.abort(new DOMException('the request timed out', 'TimeoutError')));
    const outer = opts.signal;
    outer?.addEventListener(
      'abort',
      () => {
        for (const x of this.#live.items()) x.abort(abortReason(outer));
      },
      { once: true },
    );
    this.#headers = { bare: this.#headersFor(false, undefined), json: this.#headersFor(true, undefined) };
  }

  /** Neither HTTP client changes the object it is given: a request without headers of its own shares one. */
  #headersFor(json: boolean, own: Record<string, string> | undefined): Record<string, string> {
    return {
      accept: 'application/json',
      'user-agent': this.#opts.userAgent,
      ...(json ? { 'content-type': 'application/json' } : {}),
      ...own,
      authorization: `Bearer ${this.#opts.apiKey}`,
    };
  }

  get baseUrl(): string {
    return this.#opts.baseUrl;
  }

  /** Which HTTP client sends the requests, for the trace. */
  #engine(): string {
    if (this.#agents) return 'node:http (keep-alive)';
    if (this.#opts.dispatcher) return 'undici (injected dispatcher)';
    const why = [this.#opts.proxy ? 'proxy settings from the environment' : 'bulk'];
    if (this.#opts.bulk) why.push(`at most ${this.#opts.bulk.connections} connections`);
    return `undici (${why.join(', ')})`;
  }

  /** One trace line (--debug). Its parts are masked by the caller (redact.ts), before any cut. */
  #trace(line: string): void {
    const debug = this.#opts.debug;
    if (!debug) return;
    debug(line);
  }

  #traceRequest(method: string, url: string, headers: Record<string, string>, body: string | undefined, proxy: ProxyEndpoint | undefined): void {
    const r = this.#redactor;
    this.#trace(`> ${method} ${escapeControl(r.text(url))}`);
    if (proxy) this.#trace(`> (through proxy ${redactProxyUrl(proxy.uri)}, from ${proxy.source})`);
    for (const [name, value] of Object.entries(headers)) this.#trace(`> ${name}: ${escapeControl(r.header(name, value))}`);
    if (body !== undefined) this.#trace(`> ${traceBody(r.text(body))}`);
  }

  #traceResponse(status: number, statusText: string, ms: number, headers: ApiResponse['headers'], text: string): void {
    this.#trace(`< ${status} ${statusText || STATUS_CODES[status] || ''} (${Math.round(ms)} ms)`.replace('  (', ' ('));
    for (const [name, value] of Object.entries(headers)) {
      if (TRACED_RESPONSE_HEADERS.test(name)) this.#trace(`< ${name}: ${escapeControl(this.#redactor.header(name, headerText(value)))}`);
    }
    if (text.length > 0) this.#trace(`< ${traceBody(this.#redactor.text(text))}`);
  }

  /**
   * One exchange: the answer, or the typed error (#fail). Promise callbacks rather than an async
   * function: two promises fewer per request of a bulk run (issue #18).
   */
  once(req: ApiRequest): Promise<ApiResponse> {
    try {
      return this.#exchange(req);
    } catch (error) {
      // As from an async function: a request that cannot even be built is a rejected promise.
      return Promise.reject(error);
    }
  }

  #exchange(req: ApiRequest): Promise<ApiResponse> {
    const { clock } = this.#opts;
    const to = target(this.#opts.baseUrl, this.#plainBase, req);
    const { url } = to;
    const body = req.rawBody ?? (req.body === undefined ? undefined : stringifyJson(req.body));
    const headers = req.headers ? this.#headersFor(body !== undefined, req.headers) : body !== undefined ? this.#headers.json : this.#headers.bare;
    const proxy = proxyFor(this.#opts.proxy, url);
    if (this.#opts.debug) {
      if (!this.#tracedEngine) this.#trace(`* HTTP client: ${this.#engine()}`);
      this.#tracedEngine = true;
      this.#traceRequest(req.method, url, headers, body, proxy);
    }
    // Ended by its deadline or by Ctrl-C (the outer signal aborts every exchange in #live: one listener
    // for all, not one per request; one timer for all the deadlines).
    const started = clock.now();
    const outer = this.#opts.signal;
    // Interrupted already: nothing starts.
    const x: LiveExchange = outer?.aborted
      ? { done: Promise.reject(abortReason(outer)), written: false, abort: () => {} }
      : this.#start(to, req.method, headers, body);
    const deadline = this.#live.add(x);
    const over = () => this.#live.delete(deadline);
    const failed = (error: unknown): never => {
      over();
      const e = this.#fail(error, req, url, proxy, deadline.expired, x.written);
      if (this.#opts.debug) this.#trace(`< failed after ${Math.round(clock.now() - started)} ms: ${e.message}`);
      throw e;
    };
    return x.done.then((res) => {
      over();
      try {
        return this.#answer(res, url, started, req.readJson);
      } catch (error) {
        return failed(error);
      }
    }, failed);
  }

  /** The response as the layers above see it: JSON parsed (int64-exact) when it is JSON, the quota read. */
  #answer(res: BufferedExchange, url: string, started: number, readJson: ApiRequest['readJson']): ApiResponse {
    const { text } = res;
    const received = this.#opts.clock.now();
    if (this.#opts.debug) this.#traceResponse(res.statusCode, res.statusText, received - started, res.headers, text);
    let json: unknown;
    let isJson = false;
    let known = false;
    if (text.length > 0 && isJsonContentType(res.headers['content-type'])) {
      try {
        json = readJson?.(text);
        known = json !== undefined;
        json ??= parseJson(text);
        isJson = true;
      } catch {
        isJson = false;
      }
    }
    return {
      status: res.statusCode,
      headers: res.headers,
      text,
      json,
      isJson,
      known,
      quota: quotaFromHeaders(res.headers, received, this.#opts.note && ((line) => this.#opts.note?.(this.#redactor.text(line)))),
      url,
      durationMs: received - started,
    };
  }

  /**
   * Starts one exchange through node:http (the default) or an undici dispatcher (proxy, injected, or
   * bulk), body read. `written` is false while undici says nothing was written; node:http does not say
   * (undefined).
   */
  #start(to: Target, method: HttpMethod, headers: Record<string, string>, body: string | undefined): LiveExchange {
    if (this.#agents) {
      const controller = new AbortController();
      const agents = this.#agents;
      const done = nodeRequest(to.url, { method, headers, body, signal: controller.signal, agents, connectTimeoutMs: this.#opts.connectTimeoutMs }).then(
        async (res) => ({ statusCode: res.statusCode, statusText: res.statusText, headers: res.headers, text: await readCapped(res.body) }),
      );
      return { done, written: undefined, abort: (reason) => controller.abort(reason) };
    }
    const x = new Exchange({ method, headers, body, maxBodyBytes: MAX_BODY_BYTES, tooLarge: bodyTooLarge });
    if (this.#ready) x.start(this.#ready, to.origin, to.path);
    else {
      this.#dispatcher ??= createDispatcher(this.#opts.proxy, timerMs(this.#opts.timeoutMs), this.#opts.bulk?.connections, this.#opts.connectTimeoutMs);
      void Promise.resolve(this.#dispatcher).then(
        (d) => {
          this.#ready = d;
          x.start(d, to.origin, to.path);
        },
        (error: unknown) => x.abort(error instanceof Error ? error : new Error(String(error))),
      );
    }
    return x;
  }

  /**
   * The typed error for a failed exchange. `written` is false when the HTTP client knows that nothing
   * was written (undici: the request never started), which beats any guess from the error's code.
   */
  #fail(error: unknown, req: ApiRequest, url: string, proxy: ProxyEndpoint | undefined, timedOut: boolean, written: boolean | undefined): Error {
    // Before the CliError pass-through: Ctrl-C rejects with an InterruptedError that does not yet say
    // what became of the request.
    if (this.#opts.signal?.aborted) {
      return new InterruptedError(
        isSafeMethod(req.method) || written === false
          ? 'interrupted'
          : `interrupted while ${req.method} ${req.path} was in flight: the server may or may not have processed it; check before retrying`,
      );
    }
    if (error instanceof CliError) return error;
    if (timedOut) {
      const s = this.#opts.timeoutMs / 1000;
      const via = proxy ? ` through proxy ${redactProxyUrl(proxy.uri)}` : '';
      const waiting = written === false ? ' (still waiting for a connection; not sent)' : '';
      return new TransportError(`request timed out after ${s}s (--timeout ${s}): ${req.method} ${url}${via}${waiting}`, written !== false, true, error);
    }
    const { message, sent } = describeTransportError(error, url, proxy);
    return new TransportError(this.#redactor.text(message), sent && written !== false, false, error);
  }

  async close(): Promise<void> {
    if (this.#agents) this.#agents.destroy();
    else if (!this.#opts.dispatcher && this.#dispatcher) await (await this.#dispatcher).close();
  }
}
