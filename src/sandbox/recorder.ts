// What the sandbox tells about the requests it answered: counts (stats()) and, for tests and --log,
// each request and its answer (requests(), onRequest).

import type { IncomingMessage } from 'node:http';
import type { RateHeaders } from './rate-limit.js';

/** One request as the sandbox received and answered it. */
export interface RecordedRequest {
  /** 1, 2, 3... in arrival order. */
  seq: number;
  /** Arrival time, epoch ms (from the sandbox clock). */
  time: number;
  durationMs: number;
  method: string;
  /** Raw request target, e.g. "/v1/pets?limit=5". */
  url: string;
  /** Path without the query, e.g. "/v1/pets". */
  path: string;
  /** Query parameters (first value of each). */
  query: Record<string, string>;
  /** Request headers, lower-case names, repeated ones joined by ", " (authorization included). */
  headers: Record<string, string>;
  /** The recognised API key, if any. */
  key: string | undefined;
  /** Request body text ("" when none was read: only POST /pets bodies are read). */
  body: string;
  status: number;
  responseHeaders: Record<string, string>;
  responseBody: string;
  /** The Error body's code for error responses. */
  errorCode: string | undefined;
}

/** One request as it is being answered. */
export class Exchange implements Pick<RecordedRequest, 'time' | 'method' | 'url' | 'path' | 'key' | 'body'> {
  readonly started = performance.now();
  readonly method: string;
  readonly url: string;
  readonly path: string;
  readonly search: string;
  /** When the request is decided (rate limits, bans): its arrival, or the end of an injected latency. */
  now: number;
  key: string | undefined;
  body = '';
  /** X-RateLimit-* of the limiter's decision, when it ran. */
  rate: RateHeaders | undefined;

  constructor(
    readonly req: IncomingMessage,
    readonly time: number,
  ) {
    this.now = time;
    this.method = req.method ?? 'GET';
    this.url = req.url ?? '/';
    const q = this.url.indexOf('?');
    this.path = q === -1 ? this.url : this.url.slice(0, q);
    this.search = q === -1 ? '' : this.url.slice(q + 1);
  }
}

function flatHeaders(headers: IncomingMessage['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  return out;
}

function queryRecord(search: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(search)) out[k] ??= v;
  return out;
}

export class Recorder {
  /** The counts of stats(), but the data file's. */
  readonly stats = {
    /** Requests answered. */
    requests: 0,
    byStatus: {} as Record<number, number>,
    /** Pets created over HTTP. */
    created: 0,
    count401: 0,
    count429: 0,
    /** 403 key_banned answers (including the one that starts a ban). */
    count403bans: 0,
    /** Bans started. */
    bansIssued: 0,
    /** Requests being handled right now. */
    inFlight: 0,
  };
  #records: RecordedRequest[] = [];
  #seq = 0;

  constructor(
    /** How many requests requests() keeps; 0 keeps none. */
    private readonly limit: number,
    private readonly onRequest?: (request: RecordedRequest) => void,
  ) {}

  /** Counts an answer that was sent, and records it when asked to. */
  answered(ex: Exchange, answer: Pick<RecordedRequest, 'status' | 'responseHeaders' | 'responseBody' | 'errorCode'>): void {
    this.stats.requests++;
    this.stats.byStatus[answer.status] = (this.stats.byStatus[answer.status] ?? 0) + 1;
    if (answer.status === 401) this.stats.count401++;
    if (this.limit === 0 && this.onRequest === undefined) return;
    const { time, method, url, path, key, body } = ex;
    const request = { seq: ++this.#seq, time, durationMs: performance.now() - ex.started, method, url, path, key, body };
    const entry: RecordedRequest = { ...request, query: queryRecord(ex.search), headers: flatHeaders(ex.req.headers), ...answer };
    if (this.limit > 0) {
      this.#records.push(entry);
      // Trimmed now and then, not on every request.
      if (this.#records.length > this.limit * 2) this.#records = this.#records.slice(-this.limit);
    }
    this.onRequest?.(entry);
  }

  /** The recorded requests, oldest first. */
  requests(): RecordedRequest[] {
    return this.#records.slice(-this.limit);
  }

  clear(): void {
    this.#records = [];
  }
}
