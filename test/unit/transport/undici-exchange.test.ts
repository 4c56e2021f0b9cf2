// An undici Exchange (src/transport/undici-exchange.ts) on its own: what HttpTransport's tests cannot reach
// through once(), such as a request that is aborted while it still waits for a connection.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Exchange } from '../../../src/transport/undici-exchange.js';
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

/** POSTs `body` to `url` through `agent`: the exchange, started. */
const post = (agent: Agent, url: string, body: string) =>
  new Exchange({ method: 'POST', headers: { 'content-type': 'application/json' }, body }).start(agent, new URL(url).origin, new URL(url).pathname);

describe('Exchange', () => {
  it('status, headers and the whole body as text', async () => {
    const s = await slowServer(0);
    const agent = new Agent({ connections: 1 });
    closers.push(() => agent.close());
    const res = await post(agent, s.url, '{"a":1}').done;
    expect(res.statusCode).toBe(201);
    expect(res.statusText).toBe('Created');
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.text).toBe('{"got":"{\\"a\\":1}"}');
  });

  it('a request aborted while it waits for a connection is never sent, even after the connection frees up', async () => {
    const s = await slowServer(300);
    const agent = new Agent({ connections: 1 });
    closers.push(() => agent.close());
    const first = post(agent, s.url, '"first"').done;
    const second = post(agent, s.url, '"second"');
    const reason = new Error('timed out while queued');
    setTimeout(() => second.abort(reason), 50);
    await expect(second.done).rejects.toBe(reason);
    expect((await first).statusCode).toBe(201);
    // Give a wrongly queued second request every chance to go out on the freed connection.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(s.bodies).toEqual(['"first"']);
  });
});
