// One HTTP exchange through Node's own http/https modules: the default transport when no proxy is
// configured, no dispatcher is injected and the command is not a bulk run. Node's client parses with
// the built-in C++ llhttp, while undici evaluates a large bundle and compiles its llhttp WebAssembly
// parser at every start (about 40 ms of a `pets list`; bench/README.md). undici stays for
// proxies, bulk seeding (where its lower cost per request repays the load) and tests that inject a
// MockAgent (src/transport/exchange.ts chooses; src/transport/undici-exchange.ts drives it).
//
// Errors keep Node's codes (ECONNREFUSED, ENOTFOUND, ECONNRESET, EPIPE, HPE_*, TLS codes...) for
// errors.ts (describeTransportError) to classify; a response that ends before its whole body arrived gets RESPONSE_CUT_SHORT.
import type { Agent as HttpAgent, ClientRequest, IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import { CONNECT_TIMED_OUT, cutShort } from './errors.js';
import { CONNECT_TIMEOUT_MS } from './timeouts.js';

export interface NodeAgents {
  http: HttpAgent;
  https: HttpAgent;
  /** Closes every socket of the agents (idle or not). */
  destroy(): void;
}

export interface NodeExchange {
  statusCode: number;
  statusText: string;
  /** Lower-case names; a header sent more than once is an array (as undici gives them). */
  headers: Record<string, string | string[] | undefined>;
  /** The body: async-iterable Buffers; errors mid-body carry RESPONSE_CUT_SHORT. */
  body: AsyncIterable<Buffer> & { destroy(error?: Error): void };
}

export interface NodeRequestOptions {
  method: string;
  headers: Record<string, string>;
  body?: string | undefined;
  signal: AbortSignal;
  agents: NodeAgents;
  /** Default CONNECT_TIMEOUT_MS. */
  connectTimeoutMs?: number | undefined;
}

const AGENT_OPTIONS = {
  keepAlive: true,
  // --concurrency goes up to 64.
  maxSockets: 64,
  // An idle socket is closed after 10 s (undici's keepAliveTimeout), or 1 s before the server's
  // Keep-Alive hint runs out when that is shorter: a reused socket never races the server's close.
  timeout: 10_000,
};

/** Keep-alive agents for http and https, created on first use (https loads tls only when needed). */
export function createNodeAgents(): NodeAgents {
  let http: HttpAgent | undefined;
  let https: HttpAgent | undefined;
  return {
    get http() {
      return (http ??= new (process.getBuiltinModule('node:http').Agent)(AGENT_OPTIONS));
    },
    get https() {
      return (https ??= new (process.getBuiltinModule('node:https').Agent)(AGENT_OPTIONS));
    },
    destroy() {
      http?.destroy();
      https?.destroy();
    },
  };
}

function headersOf(raw: string[]): NodeExchange['headers'] {
  const headers: NodeExchange['headers'] = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    const value = raw[i + 1]!;
    const had = headers[name];
    if (had === undefined) headers[name] = value;
    else if (Array.isArray(had)) had.push(value);
    else headers[name] = [had, value];
  }
  return headers;
}

/**
 * The body of a response: the response's own async iterator, with mid-body failures as
 * RESPONSE_CUT_SHORT (the request was sent) and `finished` called once the body is over.
 * (A plain wrapper, not an async generator: two generators cost about 60 µs a request.)
 */
function bodyOf(res: IncomingMessage, signal: AbortSignal, finished: () => void): NodeExchange['body'] {
  const it = res[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const fail = (error: unknown): never => {
    finished();
    throw signal.aborted ? (signal.reason ?? error) : cutShort(error);
  };
  const body = {
    [Symbol.asyncIterator]: () => body,
    next: (): Promise<IteratorResult<Buffer>> =>
      it.next().then((step) => {
        if (!step.done) return step;
        finished();
        // A close before the declared length without an error (older Node) still counts as cut short.
        return res.complete ? step : fail(undefined);
      }, fail),
    return: async (): Promise<IteratorResult<Buffer>> => {
      finished();
      return (await it.return?.()) ?? { done: true, value: undefined };
    },
    destroy: (error?: Error) => {
      finished();
      res.destroy(error);
    },
  };
  return body;
}

/**
 * Sends one request and resolves with the response head and a body stream. The signal ends the
 * exchange at any point: connecting, waiting for the head, or reading the body.
 */
export function nodeRequest(url: string, opts: NodeRequestOptions): Promise<NodeExchange> {
  const u = new URL(url);
  const https = u.protocol === 'https:';
  const { request } = process.getBuiltinModule(https ? 'node:https' : 'node:http');
  const headers: OutgoingHttpHeaders = { ...opts.headers };
  if (opts.body !== undefined) headers['content-length'] = Buffer.byteLength(opts.body);
  return new Promise<NodeExchange>((resolve, reject) => {
    const { signal } = opts;
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    let res: IncomingMessage | undefined;
    let req: ClientRequest;
    const onAbort = () => {
      const reason = signal.reason instanceof Error ? signal.reason : new Error('aborted');
      req.destroy(reason);
      res?.destroy(reason);
      reject(reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    const done = () => signal.removeEventListener('abort', onAbort);
    req = request(
      u,
      {
        method: opts.method,
        headers,
        agent: https ? opts.agents.https : opts.agents.http,
      },
      (response) => {
        res = response;
        // The reader (bodyOf) gets every error through the async iterator; this listener only keeps
        // an error that lands before the first read from becoming an uncaught exception.
        response.on('error', () => {});
        resolve({
          statusCode: response.statusCode ?? 0,
          statusText: response.statusMessage ?? '',
          headers: headersOf(response.rawHeaders),
          // Errors while the body is read go to its reader; the abort listener stays until then.
          body: bodyOf(response, signal, done),
        });
      },
    );
    req.on('socket', (socket) => {
      // A new connection (not a reused keep-alive one): limited like undici's connectTimeout.
      if (!socket.connecting) return;
      const timer = setTimeout(() => {
        req.destroy(Object.assign(new Error('connect timed out'), { code: CONNECT_TIMED_OUT }));
      }, opts.connectTimeoutMs ?? CONNECT_TIMEOUT_MS);
      timer.unref();
      const clear = () => clearTimeout(timer);
      socket.once(https ? 'secureConnect' : 'connect', clear);
      socket.once('close', clear);
    });
    req.on('error', (error) => {
      // Before the head: the caller gets it. After the head, the body stream reports it.
      if (res) return;
      done();
      reject(signal.aborted ? signal.reason : error);
    });
    req.end(opts.body);
  });
}
