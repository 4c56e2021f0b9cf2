// One exchange through an undici dispatcher, its body collected as text. Our own handler, not request(): its
// onRequestStart says whether anything can have reached the server, and a queued exchange ended is never sent later.
import type { Dispatcher } from 'undici';
import { MalformedResponseError } from '../errors/errors.js';
import { cutShort } from './errors.js';

/** A longer response body ends the exchange (either engine) with bodyTooLarge(). */
export const MAX_BODY_BYTES = 16 * 1024 * 1024;

export const bodyTooLarge = () =>
  new MalformedResponseError(`response body exceeds ${MAX_BODY_BYTES / 1024 / 1024} MiB; refusing to buffer it`, { code: 'body_too_large' });

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
}

type Controller = Pick<Dispatcher.DispatchController, 'abort'>;

/** One exchange and its undici handler: abort(reason) ends it with that reason, started or not. */
export class Exchange {
  readonly done: Promise<BufferedExchange>;
  #resolve!: (value: BufferedExchange) => void;
  #reject!: (reason: unknown) => void;
  #controller: Controller | undefined;
  #settled = false;
  /** Whether undici has started the request (it is about to write it): before that, nothing was sent. */
  written = false;
  /** What the caller sees, whatever undici reports after abort(). */
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

  start(dispatcher: Dispatcher, origin: string, path: string): this {
    if (this.#aborted) return this;
    const o = this.opts;
    dispatcher.dispatch(
      { origin, path, method: o.method as Dispatcher.HttpMethod, headers: o.headers, body: o.body ?? null },
      this as Dispatcher.DispatchHandler,
    );
    return this;
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
    else this.written = true;
  }

  onResponseStart(_c: Controller, statusCode: number, headers: BufferedExchange['headers'], statusText: string): void {
    this.#head = { statusCode, statusText: statusText ?? '', headers };
  }

  onResponseData(c: Controller, chunk: Buffer): void {
    this.#size += chunk.length;
    if (this.#size <= MAX_BODY_BYTES) return void this.#chunks.push(chunk);
    const error = bodyTooLarge();
    this.#finish(error); // before abort(), which undici reports back through onResponseError
    c.abort(error);
  }

  onResponseEnd(): void {
    this.#finish(undefined, { ...this.#head, text: Buffer.concat(this.#chunks, this.#size).toString('utf8') });
  }

  onResponseError(_c: Controller | null, error: Error): void {
    // A 1xx head does not count: only a final status starts the body.
    this.#finish(this.#aborted ?? (this.#head.statusCode >= 200 ? cutShort(error) : error));
  }
}
