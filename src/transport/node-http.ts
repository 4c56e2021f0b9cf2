// One HTTP exchange through Node's own http/https modules: the engine of a command that sends a few
// requests without a proxy. Loading undici costs more than such a command's whole request (it fails
// the one-request floor, bench/README.md); undici stays for proxies, bulk seeding and injected
// dispatchers (src/transport/exchange.ts chooses).
//
// Errors keep Node's codes (ECONNREFUSED, ENOTFOUND, ECONNRESET, HPE_*, TLS codes...) for errors.ts to
// classify; a response that ends before its whole body arrived is RESPONSE_CUT_SHORT (cutShort).
import type { Agent } from 'node:http';
import { CONNECT_TIMED_OUT, cutShort } from './errors.js';
import type { BufferedExchange, ExchangeOptions } from './undici-exchange.js';

/** Keep-alive agents for http and https, made on first use. */
export class NodeAgents {
  #agents = new Map<string, Agent>();

  for(https: boolean): Agent {
    const name = https ? 'node:https' : 'node:http';
    let agent = this.#agents.get(name);
    if (!agent) {
      // An idle socket is closed after 10 s, as undici's keepAliveTimeout; --concurrency goes up to 64.
      agent = new (process.getBuiltinModule(name).Agent)({ keepAlive: true, maxSockets: 64, timeout: 10_000 });
      this.#agents.set(name, agent);
    }
    return agent;
  }

  /** Closes every socket of the agents (idle or not). */
  destroy(): void {
    for (const agent of this.#agents.values()) agent.destroy();
  }
}

/** One exchange under way: its outcome, and how to end it with a reason (which it then rejects with). */
export interface NodeExchange {
  readonly done: Promise<BufferedExchange>;
  /** node:http does not say whether the request was written. */
  readonly written: undefined;
  abort(reason: Error): void;
}

/** Sends one request and collects the whole response as text; a new connection may take `connectTimeoutMs`. */
export function nodeExchange(url: URL, o: ExchangeOptions, agents: NodeAgents, connectTimeoutMs: number): NodeExchange {
  const controller = new AbortController();
  const { signal } = controller;
  const done = new Promise<BufferedExchange>((resolve, reject) => {
    const https = url.protocol === 'https:';
    const headers = o.body === undefined ? o.headers : { ...o.headers, 'content-length': String(Buffer.byteLength(o.body)) };
    const fail = (error: unknown) => reject(signal.aborted ? signal.reason : error);
    const req = process.getBuiltinModule(https ? 'node:https' : 'node:http').request(url, { method: o.method, headers, agent: agents.for(https), signal });
    let responded = false;
    req.on('response', (res) => {
      responded = true;
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= o.maxBodyBytes) return chunks.push(chunk);
        // Settled first: destroying the response reports an error of its own.
        reject(o.tooLarge());
        res.destroy();
      });
      res.on('error', (error) => fail(cutShort(error)));
      res.on('close', () => {
        if (!res.complete) return fail(cutShort(undefined));
        const text = Buffer.concat(chunks, size).toString('utf8');
        resolve({ statusCode: res.statusCode ?? 0, statusText: res.statusMessage ?? '', headers: headersOf(res.rawHeaders), text });
      });
    });
    // After the head, the connection's failure cut the body short.
    req.on('error', (error) => fail(responded ? cutShort(error) : error));
    req.on('socket', (socket) => {
      // A new connection (not a reused keep-alive one): limited like undici's connectTimeout.
      if (!socket.connecting) return;
      const timer = setTimeout(() => req.destroy(Object.assign(new Error('connect timed out'), { code: CONNECT_TIMED_OUT })), connectTimeoutMs);
      const clear = () => clearTimeout(timer);
      socket.once(https ? 'secureConnect' : 'connect', clear).once('close', clear);
    });
    req.end(o.body);
  });
  return { done, written: undefined, abort: (reason) => controller.abort(reason) };
}

/** Lower-case names; a header sent more than once is an array (as undici gives them). */
function headersOf(raw: string[]): BufferedExchange['headers'] {
  const headers: BufferedExchange['headers'] = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    const had = headers[name];
    headers[name] = had === undefined ? raw[i + 1] : [...(Array.isArray(had) ? had : [had]), raw[i + 1]!];
  }
  return headers;
}
