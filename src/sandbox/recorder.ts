// What the sandbox tells about the requests it answered: counts (stats()) and, for tests and --log,
// each request and its answer (requests(), onRequest).

import type { IncomingMessage } from 'node:http';
import type { RateHeaders } from './rate-limit.js';

/** One request as it is being answered. */
export interface Exchange {
  readonly req: IncomingMessage;
  /** Arrival time, epoch ms (sandbox clock). */
  readonly time: number;
  /** performance.now() at arrival. */
  readonly started: number;
  readonly method: string;
  readonly url: string;
  readonly path: string;
  readonly search: string;
  /** When the request is decided (rate limits, bans): its arrival, or the end of an injected latency. */
  now: number;
  /** The recognised API key, if any. */
  key: string | undefined;
  /** The request body text, when it was read. */
  body: string;
  /** X-RateLimit-* of the limiter's decision, when it ran. */
  rate: RateHeaders | undefined;
}

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

export interface SandboxStats {
  /** Requests answered. */
  requests: number;
  byStatus: Record<number, number>;
  /** Pets created over HTTP. */
  created: number;
  count401: number;
  count429: number;
  /** 403 key_banned answers (including the one that starts a ban). */
  count403bans: number;
  /** Bans started. */
  bansIssued: number;
  /** Requests being handled right now. */
  inFlight: number;
  /** Writes to the data file that reached the disk, and writes that failed. */
  persistWrites: number;
  persistErrors: number;
}

function flatHeaders(headers: IncomingMessage['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function queryRecord(search: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(search)) if (!(k in out)) out[k] = v;
  return out;
}

export class Recorder {
  /** The counts of stats() but the data file's. */
  readonly stats: Omit<SandboxStats, 'persistWrites' | 'persistErrors'> = {
    requests: 0,
    byStatus: {},
    created: 0,
    count401: 0,
    count429: 0,
    count403bans: 0,
    bansIssued: 0,
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
  answered(ex: Exchange, status: number, responseHeaders: Record<string, string>, responseBody: string, errorCode: string | undefined): void {
    this.stats.requests++;
    this.stats.byStatus[status] = (this.stats.byStatus[status] ?? 0) + 1;
    if (status === 401) this.stats.count401++;
    if (this.limit === 0 && this.onRequest === undefined) return;
    const { time, method, url, path, key, body } = ex;
    const durationMs = performance.now() - ex.started;
    const entry: RecordedRequest = {
      seq: ++this.#seq,
      time,
      durationMs,
      method,
      url,
      path,
      query: queryRecord(ex.search),
      headers: flatHeaders(ex.req.headers),
      key,
      body,
      status,
      responseHeaders,
      responseBody,
      errorCode,
    };
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
