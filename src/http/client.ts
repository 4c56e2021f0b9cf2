import { Agent, request, type Dispatcher } from 'undici';
import { CliError, InterruptedError, MalformedResponseError, NetworkError } from '../errors/errors.js';
import { parseJson, stringifyJson } from '../json/int64.js';
import type { Clock } from '../time/clock.js';
import { quotaFromHeaders, type Quota } from './quota.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS';

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
  userAgent: string;
  timeoutMs: number;
  clock: Clock;
  /** Aborted on Ctrl-C. */
  signal?: AbortSignal;
  dispatcher?: Dispatcher;
  /** Receives debug lines (never the key). */
  debug?: (line: string) => void;
}

/** What the CLI will buffer of one response body. */
export const MAX_BODY_BYTES = 16 * 1024 * 1024;

export function buildUrl(baseUrl: string, path: string, query?: ApiRequest['query']): string {
  const url = new URL(baseUrl + path);
  for (const [k, v] of Object.entries(query ?? {})) {
    if (v !== undefined) url.searchParams.set(k, String(v));
  }
  return url.toString();
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

const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

function errorCode(error: unknown): string | undefined {
  let e: unknown = error;
  for (let i = 0; i < 4 && e && typeof e === 'object'; i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

function describeTransportError(error: unknown, url: string): { message: string; sent: boolean } {
  const code = errorCode(error);
  const host = new URL(url).host;
  switch (code) {
    case 'ECONNREFUSED':
      return { message: `could not connect to ${host}: connection refused`, sent: false };
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return { message: `could not resolve host ${new URL(url).hostname}`, sent: false };
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return { message: `connection to ${host} was reset`, sent: true };
    default:
      if (code && /CERT|SSL|TLS/.test(code)) return { message: `TLS error talking to ${host} (${code})`, sent: false };
      return {
        message: `request to ${host} failed: ${(error as Error)?.message ?? String(error)}${code ? ` (${code})` : ''}`,
        sent: !NOT_SENT_CODES.has(code ?? ''),
      };
  }
}

async function readCapped(body: Dispatcher.ResponseData['body']): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) {
      body.destroy();
      throw new MalformedResponseError(`response body exceeds ${MAX_BODY_BYTES / 1024 / 1024} MiB; refusing to buffer it`, {
        code: 'body_too_large',
      });
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function isJsonContentType(value: string | string[] | undefined): boolean {
  const v = Array.isArray(value) ? value[0] : value;
  return v === undefined || /\bjson\b/i.test(v);
}

/**
 * One HTTP exchange with the API: authentication, int64-exact JSON, a deadline
 * covering connect and the whole body, and a typed error for transport faults.
 */
export class HttpTransport {
  readonly #opts: ClientOptions;
  readonly #dispatcher: Dispatcher;

  constructor(opts: ClientOptions) {
    this.#opts = opts;
    this.#dispatcher = opts.dispatcher ?? new Agent({ keepAliveTimeout: 10_000 });
  }

  get baseUrl(): string {
    return this.#opts.baseUrl;
  }

  async once(req: ApiRequest): Promise<ApiResponse> {
    const { clock } = this.#opts;
    const url = buildUrl(this.#opts.baseUrl, req.path, req.query);
    const body = req.rawBody ?? (req.body === undefined ? undefined : stringifyJson(req.body));
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': this.#opts.userAgent,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...req.headers,
      authorization: `Bearer ${this.#opts.apiKey}`,
    };
    const timeout = AbortSignal.timeout(this.#opts.timeoutMs);
    const signal = this.#opts.signal ? AbortSignal.any([this.#opts.signal, timeout]) : timeout;
    const started = clock.now();
    try {
      const res = await request(url, { method: req.method, headers, body, signal, dispatcher: this.#dispatcher });
      const text = await readCapped(res.body);
      const received = clock.now();
      let json: unknown;
      let isJson = false;
      if (text.length > 0 && isJsonContentType(res.headers['content-type'])) {
        try {
          json = parseJson(text);
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
        quota: quotaFromHeaders(res.headers, received),
        url,
        durationMs: received - started,
      };
    } catch (error) {
      if (error instanceof CliError) throw error;
      if (this.#opts.signal?.aborted) {
        throw new InterruptedError(
          req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS'
            ? 'interrupted'
            : `interrupted while ${req.method} ${req.path} was in flight: the server may or may not have processed it; check before retrying`,
        );
      }
      if (timeout.aborted) {
        throw new TransportError(`request timed out after ${this.#opts.timeoutMs / 1000}s (${req.method} ${url})`, true, true, error);
      }
      const { message, sent } = describeTransportError(error, url);
      throw new TransportError(message, sent, false, error);
    }
  }

  async close(): Promise<void> {
    if (!this.#opts.dispatcher) await this.#dispatcher.close();
  }
}
