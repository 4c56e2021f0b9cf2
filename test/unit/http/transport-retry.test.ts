// The retry table over real sockets: HttpTransport's `sent` flag decides POST safety.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { call } from '../../../src/api/pets.js';
import { ApiClient } from '../../../src/http/api-client.js';
import { TransportError } from '../../../src/transport/errors.js';
import { HttpTransport } from '../../../src/transport/exchange.js';
import { OutcomeUnknownError } from '../../../src/http/outcome.js';
import { instantClock } from './fake-clock.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

async function listen(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

function client(baseUrl: string, timeoutMs = 5000) {
  const clock = instantClock();
  const transport = new HttpTransport({ baseUrl, apiKey: 'k', userAgent: 't', timeoutMs, clock: { now: Date.now, sleep: clock.sleep } });
  return { client: new ApiClient(transport, { envName: 't' }, { clock, random: () => 0 }), clock };
}

const POST = { method: 'POST', path: '/pets', body: { name: 'Rex', categoryId: 1 } } as const;

describe('over real sockets', () => {
  it('POST: connection dropped after the body arrived -> outcome unknown, sent once', async () => {
    const bodies: string[] = [];
    const url = await listen((req) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c));
      req.on('end', () => {
        bodies.push(body);
        req.socket.destroy();
      });
    });
    const { client: c } = client(url);
    const error = await call(c, POST).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect(bodies).toEqual(['{"name":"Rex","categoryId":1}']);
    await c.close();
  });

  it('POST: no answer before the timeout -> outcome unknown, not repeated', async () => {
    let seen = 0;
    const url = await listen(() => {
      seen++; // never answers
    });
    const { client: c } = client(url, 200);
    const error = await call(c, POST).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect((error as Error).message).toMatch(/no response before the timeout/);
    expect(seen).toBe(1);
    await c.close();
  });

  it('GET: connection dropped -> retried, and the retry succeeds', async () => {
    let n = 0;
    const url = await listen((req, res) => {
      if (++n === 1) {
        req.socket.destroy();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('[]');
    });
    const { client: c } = client(url);
    expect((await call(c, { method: 'GET', path: '/pets' })).status).toBe(200);
    expect(n).toBe(2);
    await c.close();
  });

  it('POST: connection refused (nothing sent) -> retried up to max-retries, then the network error', async () => {
    const url = await listen(() => {});
    const server = servers.pop()!;
    await new Promise((r) => server.close(r));
    const { client: c, clock } = client(url);
    const error = await call(c, POST).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransportError);
    expect(error).not.toBeInstanceOf(OutcomeUnknownError);
    expect((error as TransportError).sent).toBe(false);
    expect(c.requestCount).toBe(4);
    expect(clock.sleeps).toHaveLength(3);
    await c.close();
  });
});
