// dispatchExchange (src/transport/undici-exchange.ts) on its own: what HttpTransport's tests cannot reach
// through once(), such as a request that is aborted while it still waits for a connection.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { dispatchExchange } from '../../../src/transport/undici-exchange.js';
import { Agent } from 'undici';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
});

/** A server that answers every request after `delayMs`, and lists the bodies it received. */
async function slowServer(delayMs: number): Promise<{ url: string; bodies: string[] }> {
  const bodies: string[] = [];
  const srv = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      bodies.push(body);
      setTimeout(() => {
        res.writeHead(201, { 'content-type': 'application/json' });
        res.end(`{"got":${JSON.stringify(body)}}`);
      }, delayMs);
    });
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise<void>((resolve) => srv.close(() => resolve())));
  return { url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}/v1/pets`, bodies };
}

const options = (body: string, signal: AbortSignal) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body,
  signal,
  maxBodyBytes: 1024,
  tooLarge: () => new Error('too large'),
});

describe('dispatchExchange', () => {
  it('status, headers and the whole body as text', async () => {
    const s = await slowServer(0);
    const agent = new Agent({ connections: 1 });
    closers.push(() => agent.close());
    const res = await dispatchExchange(agent, new URL(s.url).origin, new URL(s.url).pathname, options('{"a":1}', new AbortController().signal));
    expect(res.statusCode).toBe(201);
    expect(res.statusText).toBe('Created');
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.text).toBe('{"got":"{\\"a\\":1}"}');
  });

  it('a request aborted while it waits for a connection is never sent, even after the connection frees up', async () => {
    const s = await slowServer(300);
    const agent = new Agent({ connections: 1 });
    closers.push(() => agent.close());
    const first = dispatchExchange(agent, new URL(s.url).origin, new URL(s.url).pathname, options('"first"', new AbortController().signal));
    const stop = new AbortController();
    const second = dispatchExchange(agent, new URL(s.url).origin, new URL(s.url).pathname, options('"second"', stop.signal));
    const reason = new Error('timed out while queued');
    setTimeout(() => stop.abort(reason), 50);
    await expect(second).rejects.toBe(reason);
    expect((await first).statusCode).toBe(201);
    // Give a wrongly queued second request every chance to go out on the freed connection.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(s.bodies).toEqual(['"first"']);
  });

  it("a body over the cap ends the exchange with the caller's error", async () => {
    const s = await slowServer(0);
    const agent = new Agent({ connections: 1 });
    closers.push(() => agent.close());
    const big = 'x'.repeat(2048);
    await expect(
      dispatchExchange(agent, new URL(s.url).origin, new URL(s.url).pathname, options(JSON.stringify(big), new AbortController().signal)),
    ).rejects.toThrow('too large');
  });
});
