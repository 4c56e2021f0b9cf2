// What the sandbox tells about the requests it answered: counts (stats()) and, for tests and --log,
// each request and its answer (requests(), onRequest).

import type { IncomingMessage } from 'node:http';
import type { RateHeaders } from './rate-limit.js';

/** One request as the sandbox received and answered it. */
export interface RecordedRequest {
  /** 1, 2, 3... in arrival order, and the arrival time in epoch ms (the sandbox clock). */
  seq: number;
  time: number;
  durationMs: number;
  method: string;
  /** The raw request target ("/v1/pets?limit=5"), its path, and its query (first value of each). */
  url: string;
  path: string;
  query: Record<string, string>;
  /** Lower-case names, repeated ones joined by ", " (authorization included). */
  headers: Record<string, string>;
  /** The recognised API key, if any. */
  key: string | undefined;
  /** "" when none was read (only POST /pets bodies are). */
  body: string;
  status: number;
  responseHeaders: Record<string, string>;
  responseBody: string;
  /** The Error body's code. */
  errorCode: string | undefined;
}

/** One request as it is being answered. */
export class Exchange {
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

export class Recorder {
  /** The counts of stats(), but the data file's. */
  readonly stats = {
    requests: 0,
    byStatus: {} as Record<number, number>,
    /** Pets created over HTTP, 429 and 403 key_banned answers, bans started, requests being handled now. */
    created: 0,
    count429: 0,
    count403bans: 0,
    bansIssued: 0,
    inFlight: 0,
  };
  /** The last `limit` requests, oldest first. */
  readonly records: RecordedRequest[] = [];
  #seq = 0;

  constructor(
    private readonly limit: number,
    private readonly onRequest?: (request: RecordedRequest) => void,
  ) {}

  /** Counts an answer that was sent, and records it. */
  answered(ex: Exchange, answer: Pick<RecordedRequest, 'status' | 'responseHeaders' | 'responseBody' | 'errorCode'>): void {
    this.stats.requests++;
    this.stats.byStatus[answer.status] = (this.stats.byStatus[answer.status] ?? 0) + 1;
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(ex.req.headers)) if (value !== undefined) headers[name] = [value].flat().join(', ');
    const query: Record<string, string> = {};
    for (const [name, value] of new URLSearchParams(ex.search)) query[name] ??= value;
    const { time, method, url, path, key, body } = ex;
    const request = { seq: ++this.#seq, time, durationMs: performance.now() - ex.started, method, url, path, query, headers, key, body };
    const entry: RecordedRequest = { ...request, ...answer };
    this.records.push(entry);
    if (this.records.length > this.limit) this.records.shift();
    this.onRequest?.(entry);
  }
}
