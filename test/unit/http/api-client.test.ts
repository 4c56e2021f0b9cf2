import { describe, expect, it } from 'vitest';
import { call } from '../../../src/api/pets.js';
import { InterruptedError, NetworkError, RateLimitedError, ServerError } from '../../../src/errors/errors.js';
import { exitCodeFor } from '../../../src/errors/exit-codes.js';
import { ApiClient } from '../../../src/http/api-client.js';
import type { WaitNotice } from '../../../src/ratelimit/wait-announcer.js';
import { TransportError } from '../../../src/transport/errors.js';
import { MemoryRateStateStore } from '../../../src/ratelimit/key-state.js';
import { RateLimiter } from '../../../src/ratelimit/limiter.js';
import { isOutcomeUnknown, OutcomeUnknownError } from '../../../src/http/outcome.js';
import { FakeClock } from './fake-clock.js';
import { modelServer, scripted, type Step } from './transport-fakes.js';

const T0 = Date.UTC(2030, 0, 1, 12, 0, 0);
const GET = { method: 'GET', path: '/pets' } as const;
const POST = { method: 'POST', path: '/pets', body: { name: 'Rex', categoryId: 1n } } as const;
const epoch = (ms: number) => String(Math.floor(ms / 1000));

function rl(remaining: number, resetAt: number, limit = 5): Record<string, string> {
  return { 'x-ratelimit-limit': String(limit), 'x-ratelimit-remaining': String(remaining), 'x-ratelimit-reset': epoch(resetAt) };
}
const ok = (remaining = 4, resetAt = T0 + 60_000): Step => ({ status: 200, headers: rl(remaining, resetAt), body: [] });
const tooMany = (retryAfter: string | undefined, resetAt = T0 + 60_000): Step => ({
  status: 429,
  headers: { ...rl(0, resetAt), ...(retryAfter !== undefined ? { 'retry-after': retryAfter } : {}) },
  body: { code: 'rate_limited', message: 'slow down', status: 429 },
});
const refused = () => new TransportError('could not connect: connection refused', false, false, Object.assign(new Error('x'), { code: 'ECONNREFUSED' }));
const reset = () => new TransportError('connection to api.test was reset', true, false, Object.assign(new Error('x'), { code: 'ECONNRESET' }));
const timeout = () => new TransportError('request timed out after 30s', true, true, new Error('aborted'));

function setup(steps: Step[], opts: { maxRetries?: number; maxWaitMs?: number; random?: () => number; signal?: AbortSignal } = {}) {
  const clock = new FakeClock(T0);
  const { transport, sent } = scripted(clock, steps);
  const notices: WaitNotice[] = [];
  const client = new ApiClient(
    transport,
    { envName: 'test' },
    {
      clock,
      maxRetries: opts.maxRetries ?? 3,
      maxWaitMs: opts.maxWaitMs ?? 120_000,
      random: opts.random ?? (() => 0.5),
      onWait: (n) => void notices.push(n),
      ...(opts.signal ? { signal: opts.signal } : {}),
    },
  );
  return { clock, client, sent, notices, lines: () => notices.map((n) => n.text(n.ms)) };
}

describe('429 and Retry-After', () => {
  it('delta-seconds: waits exactly that long, then sends the same request again', async () => {
    const { client, sent, lines } = setup([tooMany('2', T0 + 2000), ok()]);
    const res = await call(client, GET);
    expect(res.status).toBe(200);
    expect(sent.map((s) => s.at - T0)).toEqual([0, 2000]);
    expect(sent[1]!.req).toBe(sent[0]!.req);
    expect(lines()).toEqual(['rate limited; retrying in 2s (attempt 1/3)']);
    expect(client.requestCount).toBe(2);
  });

  it('HTTP-date: waits until that instant plus the safety margin', async () => {
    const at = new Date(T0 + 5000).toUTCString();
    const { client, sent } = setup([tooMany(at, T0 + 5000), ok()]);
    await call(client, GET);
    expect(sent[1]!.at - T0).toBe(5250);
  });

  it('obsolete asctime date form is honoured too', async () => {
    const d = new Date(T0 + 3000);
    const asctime = `Tue Jan  1 12:00:03 2030`;
    expect(d.toUTCString()).toBe('Tue, 01 Jan 2030 12:00:03 GMT');
    const { client, sent } = setup([tooMany(asctime, T0 + 3000), ok()]);
    await call(client, GET);
    expect(sent[1]!.at - T0).toBeGreaterThanOrEqual(3000);
  });

  it('negative Retry-After means no wait, but an exhausted quota still waits for the reset', async () => {
    const { client, sent } = setup([tooMany('-10', T0 + 1000), ok()]);
    await call(client, GET);
    expect(sent[1]!.at - T0).toBe(1250);
  });

  it('garbage Retry-After falls back to backoff with full jitter (first ceiling 1 s)', async () => {
    // No X-RateLimit headers either, so only the backoff decides.
    const { client, sent } = setup([{ status: 429, headers: { 'retry-after': 'later' } }, ok()], { random: () => 0.75 });
    await call(client, GET);
    expect(sent[1]!.at - T0).toBe(750);
  });

  it('missing Retry-After: successive backoffs grow (1 s, 2 s, 4 s ceilings)', async () => {
    const { client, sent } = setup([{ status: 429 }, { status: 429 }, { status: 429 }, ok()], { random: () => 0.5 });
    await call(client, GET);
    const gaps = sent.slice(1).map((s, i) => s.at - sent[i]!.at);
    expect(gaps).toEqual([500, 1000, 2000]);
  });

  it('a Retry-After longer than --max-wait stops at once with exit 6 naming the reset', async () => {
    const { client, sent, clock } = setup([tooMany('600', T0 + 600_000), ok()], { maxWaitMs: 120_000 });
    const error = await call(client, GET).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(exitCodeFor(error)).toBe(6);
    expect((error as Error).message).toMatch(
      /^rate limited by the minute limit: the server asked to wait 600s.*longer than --max-wait 120s; the minute limit resets at \d\d:\d\d:\d\d \(in 600s\)/,
    );
    expect(sent).toHaveLength(1);
    expect(clock.now()).toBe(T0);
  });

  it('huge Retry-After values behave like any too-long wait', async () => {
    const { client, sent } = setup([tooMany('99999999999999999999')]);
    await expect(call(client, GET)).rejects.toBeInstanceOf(RateLimitedError);
    expect(sent).toHaveLength(1);
  });

  it('retries run out: exit 6 after max-retries + 1 requests, each after its Retry-After', async () => {
    const { client, sent, lines } = setup([tooMany('1', T0 + 1000), tooMany('1', T0 + 2000), tooMany('1', T0 + 4000)], {
      maxRetries: 2,
    });
    const error = await call(client, GET).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as Error).message).toMatch(/^rate limited by the minute limit: still limited after 2 retries; the minute limit resets at/);
    expect(sent).toHaveLength(3);
    for (let i = 1; i < sent.length; i++) expect(sent[i]!.at - sent[i - 1]!.at).toBeGreaterThanOrEqual(1000);
    expect(lines()).toEqual(['rate limited; retrying in 1s (attempt 1/2)', 'rate limited; retrying in 1s (attempt 2/2)']);
  });

  it('--max-retries 0: one request, then exit 6', async () => {
    const { client, sent } = setup([tooMany('1'), ok()], { maxRetries: 0 });
    const error = await call(client, GET).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as Error).message).toMatch(/retries are off with --max-retries 0/);
    expect(sent).toHaveLength(1);
  });

  it('POST is retried after 429 (the server did not process it)', async () => {
    const { client, sent } = setup([tooMany('1', T0 + 1000), { status: 201, headers: rl(3, T0 + 60_000), body: { id: 1 } }]);
    const res = await call(client, POST);
    expect(res.status).toBe(201);
    expect(sent).toHaveLength(2);
  });
});

describe('shared gate within one process', () => {
  it('after a 429 no other request with the key leaves before Retry-After', async () => {
    const clock = new FakeClock(T0);
    const { transport, sent } = scripted(clock, [tooMany('3'), ok(4, T0 + 60_000)], 10);
    let other: Promise<unknown> | undefined;
    const client = new ApiClient(transport, { envName: 'test' }, { clock, onWait: () => void (other ??= call(client, GET)) });
    // The 429 arrives at T0+10 (10 ms latency); a second request starts while the first waits.
    await call(client, GET);
    await other;
    expect(sent).toHaveLength(3);
    for (const s of sent.slice(1)) expect(s.at).toBeGreaterThanOrEqual(T0 + 10 + 3000);
  });

  it('requests already in flight when a 429 arrives are not held back, but none leaves after it', async () => {
    const clock = new FakeClock(T0);
    const { transport, sent } = scripted(clock, [ok(3, T0 + 2000), tooMany('2', T0 + 2000), ok(1, T0 + 2000), ok(0, T0 + 2000), ok(4, T0 + 5000)], 10);
    // Made-up answers whose Remaining jumps would read as others using the key (src/ratelimit/fleet.ts): fleet pacing off.
    const client = new ApiClient(transport, { envName: 'test' }, { clock, limiter: new RateLimiter({ clock, key: 'test', fleet: false }) });
    await call(client, GET);
    await Promise.all([call(client, GET), call(client, GET), call(client, GET)]);
    // Three left after the first answer (T0+10): all three leave; one is refused at T0+20 and retried
    // exactly when its Retry-After ends.
    expect(sent.map((s) => s.at - T0)).toEqual([0, 10, 10, 10, 2020]);
  });

  it('conflicting headers: Retry-After shorter than X-RateLimit-Reset with 0 left waits for the later', async () => {
    const { client, sent } = setup([tooMany('2', T0 + 9000), ok()]);
    await call(client, GET);
    expect(sent[1]!.at - T0).toBe(9250);
  });

  it('remaining 0: the next request waits for X-RateLimit-Reset instead of provoking a 429', async () => {
    const { client, sent, lines } = setup([ok(0, T0 + 4000), ok(4, T0 + 64_000)]);
    await call(client, GET);
    await call(client, GET);
    expect(sent[1]!.at - T0).toBe(4250);
    expect(lines()).toEqual(['rate limit reached (0/5 left); waiting 5s for the window to reset']);
  });

  it('remaining 0 with a reset beyond --max-wait: exit 6 without sending', async () => {
    const { client, sent } = setup([ok(0, T0 + 300_000)], { maxWaitMs: 10_000 });
    await call(client, GET);
    const error = await call(client, GET).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as Error).message).toMatch(
      /^minute limit reached \(0\/5 left\): waiting for the minute window .*longer than --max-wait 10s; the minute limit resets at .* \(in 300s\)/,
    );
    expect(sent).toHaveLength(1);
  });
});

describe('a ban', () => {
  it('is not retried, and its Retry-After closes the gate for the key', async () => {
    const clock = new FakeClock(T0);
    const store = new MemoryRateStateStore();
    const { transport, sent } = scripted(clock, [
      { status: 403, headers: { 'retry-after': '30' }, body: { code: 'key_banned', message: 'banned', status: 403 } },
    ]);
    const client = new ApiClient(transport, { envName: 'test' }, { clock, limiter: new RateLimiter({ clock, key: 'k', store }) });
    const error = await call(client, GET).catch((e: unknown) => e);
    expect(exitCodeFor(error)).toBe(6);
    expect(sent).toHaveLength(1);
    expect((await store.get('k'))?.gateUntil).toBe(T0 + 30_000);
  });
});

describe('what is retried', () => {
  it.each([502, 503, 504])('GET %d: retried with backoff', async (status) => {
    const { client, sent, lines } = setup([{ status }, ok()], { random: () => 0.25 });
    await call(client, GET);
    expect(sent).toHaveLength(2);
    expect(sent[1]!.at - T0).toBe(250);
    expect(lines()).toEqual([`server error (HTTP ${status}); retrying in 1s (attempt 1/3)`]);
  });

  it('GET 503 with Retry-After waits that long', async () => {
    const { client, sent } = setup([{ status: 503, headers: { 'retry-after': '4' } }, ok()]);
    await call(client, GET);
    expect(sent[1]!.at - T0).toBe(4000);
  });

  it('GET 503 every time: max-retries + 1 requests, then the server error (exit 1)', async () => {
    const { client, sent } = setup([{ status: 503 }]);
    const error = await call(client, GET).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerError);
    expect(sent).toHaveLength(4);
  });

  it.each([500, 400, 401, 404])('GET %d: not retried', async (status) => {
    const { client, sent } = setup([{ status }, ok()]);
    await client.send(GET);
    expect(sent).toHaveLength(1);
  });

  it.each([
    ['refused', refused],
    ['reset', reset],
    ['timeout', timeout],
  ])('GET after a connection %s: retried', async (_name, make) => {
    const { client, sent } = setup([make(), ok()]);
    expect((await call(client, GET)).status).toBe(200);
    expect(sent).toHaveLength(2);
  });

  it('GET connection errors every time: the transport error (exit 7) after the retries', async () => {
    const { client, sent } = setup([refused()], { maxRetries: 2 });
    const error = await call(client, GET).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransportError);
    expect(exitCodeFor(error)).toBe(7);
    expect(sent).toHaveLength(3);
  });

  it('GET when the name does not resolve: not retried', async () => {
    const dns = new TransportError('could not resolve host', false, false, Object.assign(new Error('x'), { code: 'ENOTFOUND' }));
    const { client, sent } = setup([dns, ok()]);
    await expect(call(client, GET)).rejects.toBe(dns);
    expect(sent).toHaveLength(1);
  });

  it('POST refused before sending: retried', async () => {
    const { client, sent } = setup([refused(), { status: 201, body: { id: 1 } }]);
    expect((await call(client, POST)).status).toBe(201);
    expect(sent).toHaveLength(2);
  });

  it.each([
    ['reset after the body went out', reset, /connection failed after the request was sent/],
    ['timeout', timeout, /no response before the timeout/],
  ])('POST %s: never retried; outcome unknown', async (_name, make, why) => {
    const { client, sent } = setup([make(), { status: 201, body: { id: 1 } }]);
    const error = await call(client, POST).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect(error).toBeInstanceOf(NetworkError);
    expect(isOutcomeUnknown(error)).toBe(true);
    expect(exitCodeFor(error)).toBe(7);
    expect((error as OutcomeUnknownError).code).toBe('outcome_unknown');
    expect((error as Error).message).toMatch(/may or may not have been processed/);
    expect((error as Error).message).toMatch(why);
    expect((error as Error).message).toMatch(/check with "petstore pets list" before retrying/);
    expect(sent).toHaveLength(1);
  });

  it.each([502, 503, 504])('POST %d: not retried (it may have been processed)', async (status) => {
    const { client, sent } = setup([{ status }, { status: 201 }]);
    await expect(call(client, POST)).rejects.toBeInstanceOf(ServerError);
    expect(sent).toHaveLength(1);
  });
});

describe('Ctrl-C', () => {
  function interrupted(steps: Step[]) {
    const ac = new AbortController();
    const clock = new FakeClock(T0);
    const { transport, sent } = scripted(clock, steps);
    const client = new ApiClient(transport, { envName: 'test' }, { clock, signal: ac.signal, onWait: () => void setImmediate(() => ac.abort()) });
    return { client, sent, clock };
  }

  it('during a Retry-After wait: InterruptedError (exit 130), nothing more is sent', async () => {
    const { client, sent, clock } = interrupted([tooMany('30', T0 + 30_000), ok()]);
    const error = await call(client, GET).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InterruptedError);
    expect(exitCodeFor(error)).toBe(130);
    expect(sent).toHaveLength(1);
    expect(clock.now()).toBeLessThan(T0 + 30_000);
  });

  it('during a backoff wait', async () => {
    const { client, sent } = interrupted([{ status: 503, headers: { 'retry-after': '20' } }, ok()]);
    await expect(call(client, GET)).rejects.toBeInstanceOf(InterruptedError);
    expect(sent).toHaveLength(1);
  });

  it('once the signal has aborted, no slot the limiter already holds is used: nothing more is sent (a signal made by AbortSignal.any, as the CLI makes it)', async () => {
    const ac = new AbortController();
    const clock = new FakeClock(T0);
    const plenty: Step = { status: 200, headers: rl(900_000, T0 + 60_000, 1_000_000), body: [] };
    const { transport, sent } = scripted(clock, [plenty, plenty, plenty, plenty]);
    const limiter = new RateLimiter({ clock, key: 'test', store: new MemoryRateStateStore(), batch: true, fleet: false });
    const client = new ApiClient(transport, { envName: 'test' }, { clock, signal: AbortSignal.any([ac.signal]), limiter });
    // A probe and two waiting: the quota is plentiful, so a whole block is reserved after the probe.
    await Promise.all([call(client, GET), call(client, GET), call(client, GET)]);
    expect((await limiter.acquire()).settle()).toBeUndefined();
    ac.abort();
    await expect(call(client, GET)).rejects.toBeInstanceOf(InterruptedError);
    expect(sent).toHaveLength(3);
  });

  it('during a quota wait', async () => {
    const { client, sent } = interrupted([ok(0, T0 + 50_000), ok()]);
    await call(client, GET);
    await expect(call(client, GET)).rejects.toBeInstanceOf(InterruptedError);
    expect(sent).toHaveLength(1);
  });
});

describe('quota tracking', () => {
  it('lastQuota is the latest response headers', async () => {
    const { client } = setup([ok(4, T0 + 60_000), ok(3, T0 + 60_000)]);
    await call(client, GET);
    await call(client, GET);
    expect(client.lastQuota).toEqual({ limit: 5, remaining: 3, resetAt: T0 + 60_000, seenAt: T0 });
  });
});

describe('against the sandbox rate limiter (fixed windows, ban on early retry, no grace)', () => {
  it('20 sequential requests at 5 per 3 s: all succeed, no 429, no ban', async () => {
    const clock = new FakeClock(T0 + 400);
    const server = modelServer(clock, { perWindow: 5, windowMs: 3000 });
    const client = new ApiClient(server.transport, { envName: 't' }, { clock });
    for (let i = 0; i < 20; i++) expect((await call(client, GET)).status).toBe(200);
    expect(server.count(200)).toBe(20);
    expect(server.count(429)).toBe(0);
    expect(server.count(403)).toBe(0);
  });

  it('bulk: 40 requests, concurrency 8, random latency: all succeed, zero bans, never more than remaining in flight', async () => {
    const clock = new FakeClock(T0 + 123);
    let seed = 42;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const server = modelServer(clock, { perWindow: 5, windowMs: 3000, latency: () => 5 + Math.floor(random() * 200) });
    const client = new ApiClient(server.transport, { envName: 't' }, { clock });
    let next = 0;
    const statuses: number[] = [];
    const worker = async () => {
      while (next < 40) {
        next++;
        statuses.push((await call(client, GET)).status);
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    expect(statuses).toHaveLength(40);
    expect(server.count(200)).toBe(40);
    expect(server.count(403)).toBe(0);
    expect(server.count(429)).toBe(0);
    // 40 requests at 5 per window need at least 8 windows.
    expect(clock.now() - T0).toBeGreaterThanOrEqual(7 * 3000);
  });

  it('eight "processes" (clients sharing one store), 5 requests each: zero bans', async () => {
    const clock = new FakeClock(T0 + 700);
    const server = modelServer(clock, { perWindow: 5, windowMs: 3000, latency: (n) => 3 + ((n * 37) % 50) });
    const store = new MemoryRateStateStore();
    const clients = Array.from(
      { length: 8 },
      () => new ApiClient(server.transport, { envName: 't' }, { clock, limiter: new RateLimiter({ clock, key: 'k', store, pollMs: 20 }) }),
    );
    await Promise.all(
      clients.map(async (c) => {
        for (let i = 0; i < 5; i++) await call(c, GET);
      }),
    );
    expect(server.count(200)).toBe(40);
    expect(server.count(403)).toBe(0);
  });

  it('a 429 provoked by someone else (unknown quota use) closes the gate for everyone; no ban', async () => {
    const clock = new FakeClock(T0 + 100);
    const server = modelServer(clock, { perWindow: 3, windowMs: 2000 });
    // Another client of the same key uses up the window without our knowledge.
    for (let i = 0; i < 3; i++) await server.transport.once(GET);
    const client = new ApiClient(server.transport, { envName: 't' }, { clock });
    const results = await Promise.all(Array.from({ length: 6 }, () => call(client, GET)));
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(server.count(429)).toBe(1);
    expect(server.count(403)).toBe(0);
  });
});
