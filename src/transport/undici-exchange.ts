// One HTTP exchange through an undici dispatcher's own dispatch(): the response is collected by a
// plain handler object, without undici's request() API and the Readable stream it builds around
// every body. For bulk seeding this is the cheapest client Node has (bench/README.md):
// 5,000 POSTs at concurrency 8 take about 130 µs of CPU each this way, against about 170 µs through
// node:http and 190 µs through undici's request().
//
// Errors keep undici's codes (UND_ERR_SOCKET, UND_ERR_CONNECT_TIMEOUT, ECONNREFUSED...) for
// errors.ts (describeTransportError) to classify, except that a failure after the response head is RESPONSE_CUT_SHORT (as
// from node-http.ts); abort(reason) rejects with that reason. undici starts a request
// (onRequestStart) just before it writes it, so `written` tells the caller whether anything can
// have reached the server.
import { cutShort } from './errors.js';
import type { Dispatcher } from 'undici';

export interface BufferedExchange {
  statusCode: number;
  statusText: string;
  /** Lower-case names; a header sent more than once is an array. */
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export interface ExchangeOptions {
  method: string;
  headers: Record<string, string>;
  body?: string | undefined;
  /** The most body bytes kept; a longer body ends the exchange with tooLarge(). */
  maxBodyBytes: number;
  tooLarge: () => Error;
}

/** What the handler API hands to each callback: enough to end the exchange. */
interface Controller {
  abort(reason: Error): void;
}

type Headers = BufferedExchange['headers'];

function text(chunks: Buffer[], size: number): string {
  if (chunks.length === 1) return chunks[0]!.toString('utf8');
  return Buffer.concat(chunks, size).toString('utf8');
}

/**
 * One exchange and its undici handler in one object, its callbacks methods: a bulk run makes one per
 * request, and closures and an AbortSignal per request were a measurable share of its CPU (issue #18).
 * `abort` ends it with that reason, whether undici has started it or not.
 */
export class Exchange {
  readonly done: Promise<BufferedExchange>;
  #resolve!: (value: BufferedExchange) => void;
  #reject!: (reason: unknown) => void;
  #controller: Controller | undefined;
  /** Why the exchange was ended before undici started it (it waits for a connection until then). */
  #endedEarly: Error | undefined;
  #settled = false;
  #started = false;
  #statusCode = 0;
  #statusText = '';
  #headers: Headers = {};
  #chunks: Buffer[] = [];
  #size = 0;
  /** The reason given to abort(), which is what the caller sees whatever undici reports after it. */
  #aborted: Error | undefined;

  constructor(private readonly opts: ExchangeOptions) {
    this.done = new Promise<BufferedExchange>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
  }

  /** Hands the exchange to undici. */
  start(dispatcher: Dispatcher, origin: string, path: string): this {
    if (this.#aborted) return this;
    const o = this.opts;
    dispatcher.dispatch(
      { origin, path, method: o.method as Dispatcher.HttpMethod, headers: o.headers, body: o.body ?? null },
      this as unknown as Dispatcher.DispatchHandler,
    );
    return this;
  }

  /** Whether undici has started the request (it is about to write it): before that, nothing was sent. */
  get written(): boolean {
    return this.#started;
  }

  abort(reason: Error): void {
    if (this.#settled) return;
    this.#aborted = reason;
    this.#finish(reason);
    if (this.#controller) this.#controller.abort(reason);
    else this.#endedEarly = reason;
  }

  #finish(error: unknown, ok?: BufferedExchange): void {
    if (this.#settled) return;
    this.#settled = true;
    if (ok) this.#resolve(ok);
    else this.#reject(error);
  }

  onRequestStart(c: Controller): void {
    this.#controller = c;
    // Aborted (a timeout, Ctrl-C) while queued: it must not go out later, unrecorded.
    if (this.#endedEarly) c.abort(this.#endedEarly);
    else this.#started = true;
  }

  onResponseStart(_c: Controller, status: number, h: Headers, message: string): void {
    this.#statusCode = status;
    this.#headers = h;
    this.#statusText = message ?? '';
  }

  onResponseData(c: Controller, chunk: Buffer): void {
    this.#size += chunk.length;
    if (this.#size > this.opts.maxBodyBytes) {
      const error = this.opts.tooLarge();
      // Settled first: undici reports the abort back through onResponseError at once.
      this.#finish(error);
      c.abort(error);
      return;
    }
    this.#chunks.push(chunk);
  }

  onResponseEnd(): void {
    this.#finish(undefined, { statusCode: this.#statusCode, statusText: this.#statusText, headers: this.#headers, text: text(this.#chunks, this.#size) });
  }

  onResponseError(_c: Controller | null, error: Error): void {
    // A 1xx head does not count: only a final status starts the body.
    this.#finish(this.#aborted ?? (this.#statusCode >= 200 ? cutShort(error) : error));
  }
}
