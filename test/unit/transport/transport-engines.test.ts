// HttpTransport's two engines against a real (hostile) server on 127.0.0.1: node:http
// (src/transport/node-http.ts, the default) and undici's dispatcher (src/transport/undici-exchange.ts:
// bulk seeding, proxies). Both must give the same responses, headers, error messages and sent/not-sent
// classification.
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { TransportError } from '../../../src/transport/errors.js';
import { HttpTransport, type ApiResponse } from '../../../src/transport/exchange.js';
import { MAX_BODY_BYTES } from '../../../src/transport/undici-exchange.js';
import { InterruptedError, MalformedResponseError } from '../../../src/errors/errors.js';
import { Agent } from 'undici';
import { systemClock } from '../../../src/time/clock.js';
import { closedPortUrl } from '../../helpers/e2e.js';
import { json, startFaultServer, startUnansweredListener, type Fault, type FaultServer, type Script } from '../../helpers/fault-server.js';

const KEY = 'sk_node_transport_unit_3k3k';

const servers: FaultServer[] = [];
afterAll(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function server(script: Script | Fault[]): Promise<FaultServer> {
  const s = await startFaultServer(script);
  servers.push(s);
  return s;
}

const ENGINES = [
  { engine: 'node:http', bulk: false },
  { engine: 'undici dispatch (bulk)', bulk: true },
] as const;

interface TransportOpts {
  timeoutMs?: number;
  connectTimeoutMs?: number;
  signal?: AbortSignal;
  bulk?: boolean;
}

function transport(baseUrl: string, opts: TransportOpts = {}): HttpTransport {
  return new HttpTransport({
    baseUrl,
    apiKey: KEY,
    userAgent: 'petstore-cli/test',
    timeoutMs: opts.timeoutMs ?? 5000,
    clock: systemClock,
    ...(opts.bulk ? { bulk: { connections: 8 } } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(opts.connectTimeoutMs ? { connectTimeoutMs: opts.connectTimeoutMs } : {}),
  });
}

async function once(baseUrl: string, req: Parameters<HttpTransport['once']>[0], opts: TransportOpts = {}): Promise<ApiResponse> {
  const t = transport(baseUrl, opts);
  try {
    return await t.once(req);
  } finally {
    await t.close();
  }
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a failure');
}

describe.each(ENGINES)('$engine', ({ bulk }) => {
  describe.concurrent('responses', () => {
    it('status, lower-case headers (repeated ones as arrays), text and int64-exact JSON', async () => {
      const s = await server([
        {
          kind: 'raw',
          data:
            'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Thing: a\r\nx-thing: b\r\nSet-Cookie: c=1\r\nX-RateLimit-Remaining: 7\r\n' +
            'Content-Length: 30\r\nConnection: close\r\n\r\n[{"id":9223372036854775807}]  ',
        },
      ]);
      const res = await once(s.baseUrl, { method: 'GET', path: '/pets', query: { limit: 5 } }, { bulk });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.headers['x-thing']).toEqual(['a', 'b']);
      expect(res.headers['set-cookie']).toBe('c=1');
      expect(res.headers['x-ratelimit-remaining']).toBe('7');
      expect(res.text).toBe('[{"id":9223372036854775807}]  ');
      expect(res.isJson).toBe(true);
      expect(res.json).toEqual([{ id: 9223372036854775807n }]);
      expect(s.requests()[0]!.url).toBe('/v1/pets?limit=5');
    });

    it('sends Accept, User-Agent, Authorization, and Content-Type with Content-Length for a body', async () => {
      const s = await server([json(201, { id: 1 })]);
      const res = await once(s.baseUrl, { method: 'POST', path: '/pets', body: { name: 'Rëx', categoryId: 1n } }, { bulk });
      expect(res.status).toBe(201);
      const r = s.requests()[0]!;
      expect(r.method).toBe('POST');
      expect(r.body).toBe('{"name":"Rëx","categoryId":1}');
      expect(r.headers).toMatchObject({
        accept: 'application/json',
        'user-agent': 'petstore-cli/test',
        authorization: `Bearer ${KEY}`,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(r.body)),
      });
    });

    it('a body over MAX_BODY_BYTES: the same MalformedResponseError as before', async () => {
      const s = await server([{ kind: 'big', status: 200, bytes: MAX_BODY_BYTES + 1024 * 1024 }]);
      const error = await failure(once(s.baseUrl, { method: 'GET', path: '/pets' }, { bulk }));
      expect(error).toBeInstanceOf(MalformedResponseError);
      expect(error.message).toBe('response body exceeds 16 MiB; refusing to buffer it');
    });
  });

  describe('keep-alive', () => {
    it('connections are reused: never more than requests at once; close() ends them', async () => {
      const sockets = new Set<Socket>();
      let connections = 0;
      const srv: Server = createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('[]');
      });
      srv.on('connection', (socket) => {
        connections++;
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
      });
      await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
      const baseUrl = `http://127.0.0.1:${(srv.address() as AddressInfo).port}/v1`;
      const t = transport(baseUrl, { bulk });
      try {
        for (let i = 0; i < 5; i++) expect((await t.once({ method: 'GET', path: '/pets' })).status).toBe(200);
        // undici hands over a response just before its connection is free, so the next request may open a second.
        expect(connections).toBeLessThanOrEqual(bulk ? 2 : 1);
        // Eight at a time, 20 rounds: 8 connections at most (the bulk limit, or node:http's reuse of idle sockets).
        await Promise.all(
          Array.from({ length: 8 }, async () => {
            for (let i = 0; i < 20; i++) await t.once({ method: 'POST', path: '/pets', body: { i } });
          }),
        );
        expect(connections).toBeLessThanOrEqual(8);
        await t.close();
        await new Promise((resolve) => setTimeout(resolve, 50));
        expect(sockets.size).toBe(0);
      } finally {
        await new Promise<void>((resolve) => srv.close(() => resolve()));
      }
    });
  });

  describe.concurrent('failures: one classification for both engines', () => {
    it('connection refused: not sent', async () => {
      const base = await closedPortUrl();
      const error = await failure(once(base, { method: 'POST', path: '/pets', body: {} }, { bulk }));
      expect(error).toBeInstanceOf(TransportError);
      expect(error.message).toMatch(/^could not connect to 127\.0\.0\.1:\d+: connection refused$/);
      expect((error as TransportError).sent).toBe(false);
      expect((error as TransportError).timedOut).toBe(false);
    });

    it('connect timeout (the server never completes the connection): not sent, not a request timeout', async () => {
      const listener = await startUnansweredListener();
      try {
        const error = await failure(once(listener.baseUrl, { method: 'POST', path: '/pets', body: {} }, { connectTimeoutMs: 200, timeoutMs: 5000, bulk }));
        expect(error).toBeInstanceOf(TransportError);
        expect(error.message).toMatch(/^could not connect to 127\.0\.0\.1:\d+: no answer to the connection attempt \(timed out\)$/);
        expect((error as TransportError).sent).toBe(false);
        expect((error as TransportError).timedOut).toBe(false);
      } finally {
        await listener.close();
      }
    });

    it('slow headers within the timeout: the answer arrives whole', async () => {
      const s = await server([{ ...json(200, [{ id: 1, name: 'Rex', categoryId: 2 }]), delayMs: 300 } as Fault]);
      const res = await once(s.baseUrl, { method: 'GET', path: '/pets' }, { timeoutMs: 3000, bulk });
      expect(res.status).toBe(200);
      expect(res.text).toBe('[{"id":1,"name":"Rex","categoryId":2}]');
    });

    it('slow headers past the timeout: timedOut, sent', async () => {
      const s = await server([{ ...json(200, []), delayMs: 2000 } as Fault]);
      const error = await failure(once(s.baseUrl, { method: 'POST', path: '/pets', body: {} }, { timeoutMs: 300, bulk }));
      expect(error.message).toBe(`request timed out after 0.3s (--timeout 0.3): POST ${s.baseUrl}/pets`);
      expect((error as TransportError).timedOut).toBe(true);
      expect((error as TransportError).sent).toBe(true);
    });

    it('unresolvable host: not sent', async () => {
      const error = await failure(once('http://petstore-nowhere.invalid/v1', { method: 'GET', path: '/pets' }, { bulk }));
      expect(error.message).toBe('could not resolve host petstore-nowhere.invalid');
      expect((error as TransportError).sent).toBe(false);
    });

    for (const how of ['reset', 'close'] as const) {
      it(`dropped before the head (${how}): "was reset", sent`, async () => {
        const s = await server([{ kind: 'drop', how }]);
        const error = await failure(once(s.baseUrl, { method: 'POST', path: '/pets', body: {} }, { bulk }));
        expect(error.message).toMatch(/^connection to 127\.0\.0\.1:\d+ was reset$/);
        expect((error as TransportError).sent).toBe(true);
      });

      it(`cut after the head (${how}): "closed before the whole response arrived", sent`, async () => {
        const s = await server([{ kind: 'cut', status: 200, headers: { 'content-type': 'application/json' }, contentLength: 500, body: '[{"id":1,', how }]);
        const error = await failure(once(s.baseUrl, { method: 'GET', path: '/pets' }, { bulk }));
        expect(error).toBeInstanceOf(TransportError);
        expect(error.message).toMatch(/^connection to 127\.0\.0\.1:\d+ closed before the whole response arrived$/);
        expect((error as TransportError).sent).toBe(true);
        expect((error as TransportError).timedOut).toBe(false);
      });
    }

    for (const connection of ['connection: close\r\n', ''])
      it(`a body shorter than its Content-Length (FIN${connection ? ', connection: close' : ', keep-alive'}): cut short, not a parse error`, async () => {
        const s = await server([
          { kind: 'raw', data: `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 64\r\n${connection}\r\n[{"id":1}`, end: 'close' },
        ]);
        const error = await failure(once(s.baseUrl, { method: 'GET', path: '/pets' }, { bulk }));
        expect(error.message).toMatch(/^connection to 127\.0\.0\.1:\d+ closed before the whole response arrived$/);
        expect((error as TransportError).sent).toBe(true);
      });

    it('an answer that is not HTTP: a one-line transport error, sent', async () => {
      const s = await server([{ kind: 'raw', data: 'SSH-2.0-OpenSSH_9.6\r\n\r\n', end: 'close' }]);
      const error = await failure(once(s.baseUrl, { method: 'GET', path: '/pets' }, { bulk }));
      expect(error).toBeInstanceOf(TransportError);
      expect(error.message).toMatch(/^the answer from 127\.0\.0\.1:\d+ is not HTTP\/1\.1 \(Expected HTTP\/.*\)$/);
      expect(error.message).not.toContain('\n');
      expect((error as TransportError).sent).toBe(true);
    });

    it('no answer: the timeout ends it (timedOut, sent)', async () => {
      const s = await server([{ kind: 'stall' }]);
      const started = Date.now();
      const error = await failure(once(s.baseUrl, { method: 'POST', path: '/pets', body: {} }, { timeoutMs: 300, bulk }));
      expect(error.message).toBe(`request timed out after 0.3s (--timeout 0.3): POST ${s.baseUrl}/pets`);
      expect((error as TransportError).timedOut).toBe(true);
      expect((error as TransportError).sent).toBe(true);
      expect(Date.now() - started).toBeLessThan(3000);
    });

    it('exchanges started at different times each time out at their own deadline; one answered in time is not ended', async () => {
      const s = await server((req) => (req.path.endsWith('/ok') ? json(200, { ok: true }) : { kind: 'stall' }));
      const t = transport(s.baseUrl, { timeoutMs: 400, bulk });
      try {
        const ended = (p: Promise<unknown>) => failure(p).then((error) => ({ error, at: Date.now() }));
        const started = Date.now();
        const first = ended(t.once({ method: 'POST', path: '/first', body: {} }));
        await new Promise((resolve) => setTimeout(resolve, 250));
        const second = ended(t.once({ method: 'POST', path: '/second', body: {} }));
        const ok = await t.once({ method: 'GET', path: '/ok' });
        expect(ok.status).toBe(200);
        const a = await first;
        const b = await second;
        expect(a.error.message).toBe(`request timed out after 0.4s (--timeout 0.4): POST ${s.baseUrl}/first`);
        expect(b.error.message).toBe(`request timed out after 0.4s (--timeout 0.4): POST ${s.baseUrl}/second`);
        expect((b.error as TransportError).timedOut).toBe(true);
        // Not ended with the first (a shared timer firing for everyone), nor before its own 400 ms.
        expect(a.at - started).toBeGreaterThanOrEqual(390);
        expect(b.at - a.at).toBeGreaterThanOrEqual(200);
        expect(b.at - started).toBeGreaterThanOrEqual(640);
      } finally {
        await t.close();
      }
    });

    it('the head, then a stalled body: the timeout covers the whole body', async () => {
      const s = await server([
        { kind: 'stall', head: { status: 200, headers: { 'content-type': 'application/json' }, contentLength: 1000, body: '[{"id":1,' } },
      ]);
      const error = await failure(once(s.baseUrl, { method: 'GET', path: '/pets' }, { timeoutMs: 300, bulk }));
      expect(error.message).toMatch(/^request timed out after 0\.3s/);
      expect((error as TransportError).timedOut).toBe(true);
    });

    it('Ctrl-C while a POST is in flight: InterruptedError saying the outcome is unknown', async () => {
      const s = await server([{ kind: 'stall' }]);
      const ctrlC = new AbortController();
      // As src/main.ts does on SIGINT: the reason is an InterruptedError that says nothing of the request.
      // Once the server has it (not after a fixed delay: on a busy machine the request may not have left).
      const poll = setInterval(() => {
        if (s.requests().length === 0) return;
        clearInterval(poll);
        ctrlC.abort(new InterruptedError());
      }, 5);
      const error = await failure(once(s.baseUrl, { method: 'POST', path: '/pets', body: {} }, { signal: ctrlC.signal, bulk }));
      expect(error).toBeInstanceOf(InterruptedError);
      expect(error.message).toMatch(/^interrupted while POST \/pets was in flight: the server may or may not have processed it/);
    });

    it('Ctrl-C mid-body of a GET: "interrupted"', async () => {
      const s = await server([{ kind: 'stall', head: { status: 200, contentLength: 100, body: '[' } }]);
      const ctrlC = new AbortController();
      setTimeout(() => ctrlC.abort(), 100);
      const error = await failure(once(s.baseUrl, { method: 'GET', path: '/pets' }, { signal: ctrlC.signal, bulk }));
      expect(error).toBeInstanceOf(InterruptedError);
      expect(error.message).toBe('interrupted');
    });
  });
});

describe('undici: a request that never left', () => {
  it('a timeout while it waits for a connection: not sent (safe to send again), and never sent later', async () => {
    let received = 0;
    const srv: Server = createServer((_req, res) => {
      received++;
      setTimeout(() => res.writeHead(201, { 'content-type': 'application/json' }).end('{"id":1}'), 600);
    });
    await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
    const baseUrl = `http://127.0.0.1:${(srv.address() as AddressInfo).port}/v1`;
    // Two transports on one dispatcher with a single connection: the second request queues behind the first.
    const dispatcher = new Agent({ connections: 1 });
    const make = (timeoutMs: number) => new HttpTransport({ baseUrl, apiKey: KEY, userAgent: 'petstore-cli/test', timeoutMs, clock: systemClock, dispatcher });
    try {
      const first = make(5000).once({ method: 'POST', path: '/pets', body: { n: 1 } });
      await new Promise((resolve) => setTimeout(resolve, 50));
      const error = await failure(make(200).once({ method: 'POST', path: '/pets', body: { n: 2 } }));
      expect(error).toBeInstanceOf(TransportError);
      expect(error.message).toBe(`request timed out after 0.2s (--timeout 0.2): POST ${baseUrl}/pets (still waiting for a connection; not sent)`);
      expect((error as TransportError).sent).toBe(false);
      expect((await first).status).toBe(201);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(received).toBe(1);
    } finally {
      await dispatcher.close();
      await new Promise<void>((resolve) => srv.close(() => resolve()));
    }
  });
});
