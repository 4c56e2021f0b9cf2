// One HTTP exchange through an undici dispatcher's own dispatch(): the response is collected by a
// plain handler object, without undici's request() API and the Readable stream it builds around
// every body. For bulk seeding this is the cheapest client Node has (bench/README.md):
// 5,000 POSTs at concurrency 8 take about 130 µs of CPU each this way, against about 170 µs through
// node:http and 190 µs through undici's request().
//
// Errors keep undici's codes (UND_ERR_SOCKET, UND_ERR_CONNECT_TIMEOUT, ECONNREFUSED...) for
// errors.ts (describeTransportError) to classify, except that a failure after the response head is RESPONSE_CUT_SHORT (as
// from node-http.ts); an abort rejects with the signal's reason. undici starts a request
// (onRequestStart) just before it writes it, so `onStart` tells the caller whether anything can
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

export interface DispatchOptions {
  method: string;
  headers: Record<string, string>;
  body?: string | undefined;
  signal: AbortSignal;
  /** The most body bytes kept; a longer body ends the exchange with tooLarge(). */
  maxBodyBytes: number;
  tooLarge: () => Error;
  /** Called when undici is about to write the request: before that, nothing was sent. */
  onStart?: () => void;
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

/** Sends one request and resolves once the whole body is in. */
export function dispatchExchange(dispatcher: Dispatcher, origin: string, path: string, opts: DispatchOptions): Promise<BufferedExchange> {
  const { signal } = opts;
  return new Promise<BufferedExchange>((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    let controller: Controller | undefined;
    /** Why the exchange was ended before undici started it (it waits for a connection until then). */
    let endedEarly: Error | undefined;
    let settled = false;
    let statusCode = 0;
    let statusText = '';
    let headers: Headers = {};
    const chunks: Buffer[] = [];
    let size = 0;
    const abortReason = () => (signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    const onAbort = () => {
      const reason = abortReason();
      finish(reason);
      if (controller) controller.abort(reason);
      else endedEarly = reason;
    };
    const finish = (error: unknown, ok?: BufferedExchange) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      if (ok) resolve(ok);
      else reject(error);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    const handler = {
      onRequestStart(c: Controller) {
        controller = c;
        // Aborted (a timeout, Ctrl-C) while queued: it must not go out later, unrecorded.
        if (endedEarly) c.abort(endedEarly);
        else opts.onStart?.();
      },
      onResponseStart(_c: Controller, status: number, h: Headers, message: string) {
        statusCode = status;
        headers = h;
        statusText = message ?? '';
      },
      onResponseData(c: Controller, chunk: Buffer) {
        size += chunk.length;
        if (size > opts.maxBodyBytes) {
          const error = opts.tooLarge();
          // Settled first: undici reports the abort back through onResponseError at once.
          finish(error);
          c.abort(error);
          return;
        }
        chunks.push(chunk);
      },
      onResponseEnd() {
        finish(undefined, { statusCode, statusText, headers, text: text(chunks, size) });
      },
      onResponseError(_c: Controller | null, error: Error) {
        // A 1xx head does not count: only a final status starts the body.
        finish(signal.aborted ? abortReason() : statusCode >= 200 ? cutShort(error) : error);
      },
    };
    dispatcher.dispatch(
      { origin, path, method: opts.method as Dispatcher.HttpMethod, headers: opts.headers, body: opts.body ?? null },
      handler as unknown as Dispatcher.DispatchHandler,
    );
  });
}
