// One exchange through node:http/https, for a command's few requests without a proxy: loading undici costs
// more than such a request (the `request` floor). Errors keep Node's codes for errors.ts.
import type { Agent } from 'node:http';
import { CONNECT_TIMED_OUT, cutShort } from './errors.js';
import { type BufferedExchange, bodyTooLarge, type ExchangeOptions, MAX_BODY_BYTES } from './undici-exchange.js';

/** Keep-alive agents for http and https, made on first use; idle sockets close after 10 s, as undici's. */
export class NodeAgents {
  #agents = new Map<string, Agent>();

  for(name: 'node:http' | 'node:https'): Agent {
    let agent = this.#agents.get(name);
    if (!agent) this.#agents.set(name, (agent = new (process.getBuiltinModule(name).Agent)({ keepAlive: true, maxSockets: 64, timeout: 10_000 })));
    return agent;
  }

  destroy(): void {
    for (const agent of this.#agents.values()) agent.destroy();
  }
}

/** Sends one request and collects the whole response as text; a new connection may take `connectTimeoutMs`. */
export function nodeExchange(url: URL, o: ExchangeOptions, agents: NodeAgents, connectTimeoutMs: number) {
  const controller = new AbortController();
  const { signal } = controller;
  const done = new Promise<BufferedExchange>((resolve, reject) => {
    const module = url.protocol === 'https:' ? 'node:https' : 'node:http';
    const headers = o.body === undefined ? o.headers : { ...o.headers, 'content-length': String(Buffer.byteLength(o.body)) };
    const fail = (error: unknown) => reject(signal.aborted ? signal.reason : error);
    const req = process.getBuiltinModule(module).request(url, { method: o.method, headers, agent: agents.for(module), signal });
    let responded = false;
    req.on('response', (res) => {
      responded = true;
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= MAX_BODY_BYTES) return chunks.push(chunk);
        reject(bodyTooLarge()); // before destroy(), which reports an error of its own
        res.destroy();
      });
      res.on('error', (error) => fail(cutShort(error)));
      res.on('close', () => {
        if (!res.complete) return fail(cutShort(undefined));
        resolve({
          statusCode: res.statusCode ?? 0,
          statusText: res.statusMessage ?? '',
          headers: headersOf(res.rawHeaders),
          text: Buffer.concat(chunks, size).toString('utf8'),
        });
      });
    });
    req.on('error', (error) => fail(responded ? cutShort(error) : error));
    req.on('socket', (socket) => {
      // A new connection (not a reused one) is limited like undici's connect timeout.
      if (!socket.connecting) return;
      const timer = setTimeout(() => req.destroy(Object.assign(new Error('connect timed out'), { code: CONNECT_TIMED_OUT })), connectTimeoutMs);
      const clear = () => clearTimeout(timer);
      socket.once(module === 'node:https' ? 'secureConnect' : 'connect', clear).once('close', clear);
    });
    req.end(o.body);
  });
  // node:http does not say whether the request was written.
  return { done, written: undefined, abort: (reason: Error) => controller.abort(reason) };
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
