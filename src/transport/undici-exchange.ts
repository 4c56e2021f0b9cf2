// One HTTP exchange through an undici dispatcher's dispatch(), its body collected as text. A handler of
// our own rather than undici's request(): undici calls onRequestStart just before it writes the
// request, so `written` tells whether anything can have reached the server, and an exchange ended
// while it waits for a connection is never sent later.
//
// Errors keep undici's codes for errors.ts to classify, except that a failure after the response head
// is RESPONSE_CUT_SHORT (cutShort); abort(reason) rejects with that reason.
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

/** What undici hands to each callback: enough to end the exchange. */
type Controller = Pick<Dispatcher.DispatchController, 'abort'>;

/** One exchange and its undici handler: `abort` ends it with that reason, whether undici has started it or not. */
export class Exchange {
  readonly done: Promise<BufferedExchange>;
  #resolve!: (value: BufferedExchange) => void;
  #reject!: (reason: unknown) => void;
  #controller: Controller | undefined;
  #settled = false;
  #started = false;
  /** The reason given to abort(), which is what the caller sees whatever undici reports after it. */
  #aborted: Error | undefined;
  #head: Omit<BufferedExchange, 'text'> = { statusCode: 0, statusText: '', headers: {} };
  readonly #chunks: Buffer[] = [];
  #size = 0;

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
    const request = { origin, path, method: o.method as Dispatcher.HttpMethod, headers: o.headers, body: o.body ?? null };
    dispatcher.dispatch(request, this as unknown as Dispatcher.DispatchHandler);
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
    this.#controller?.abort(reason);
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
    if (this.#aborted) c.abort(this.#aborted);
    else this.#started = true;
  }

  onResponseStart(_c: Controller, statusCode: number, headers: BufferedExchange['headers'], statusText: string): void {
    this.#head = { statusCode, statusText: statusText ?? '', headers };
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
    this.#finish(undefined, { ...this.#head, text: Buffer.concat(this.#chunks, this.#size).toString('utf8') });
  }

  onResponseError(_c: Controller | null, error: Error): void {
    // A 1xx head does not count: only a final status starts the body.
    this.#finish(this.#aborted ?? (this.#head.statusCode >= 200 ? cutShort(error) : error));
  }
}
