// Values from a response are clamped before they reach the limiter (issue #15, item 4): the
// X-RateLimit-Reset heuristic, Retry-After beyond --max-wait or beyond a day, a ban's gate, and
// timers that never overflow. In process, on fake clocks.

import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiClient } from '../../../src/http/api-client.js';
import { RateLimitedError } from '../../../src/errors/errors.js';
import { quotaFromHeaders } from '../../../src/ratelimit/quota.js';
import { MAX_WINDOW_MS, systemClock } from '../../../src/time/clock.js';
import { FakeClock } from './fake-clock.js';
import { scripted } from './transport-fakes.js';

const NOW = Date.UTC(2030, 0, 1, 12, 0, 0);
const q = (reset: string, note?: (line: string) => void) =>
  quotaFromHeaders({ 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '7', 'x-ratelimit-reset': reset }, NOW, note);

describe('X-RateLimit-Reset heuristic', () => {
  it.each([
    ['0', NOW],
    ['42', NOW + 42_000],
    ['86400', NOW + 86_400_000],
    ['86401', NOW + 86_401_000], // a daily reset rounded up: within the hour of slack
    [String(NOW / 1000 + 42), NOW + 42_000],
    [String(NOW + 42_000), NOW + 42_000],
    [String(NOW / 1000 - 3600), NOW - 3_600_000],
  ])('%s -> resets at the right instant', (reset, at) => {
    expect(q(reset)?.resetAt).toBe(at);
  });

  it.each([
    [String(MAX_WINDOW_MS / 1000 + 1)], // delta beyond a day and its hour of slack
    ['999999999'], // delta of 31 years
    [String(NOW / 1000 + 2 * 86400)],
    [String(NOW + 2 * MAX_WINDOW_MS)],
    [String(NOW / 1000 - 2 * 86400)],
    ['99999999999999999'],
    ['-5'],
    ['soon'],
    ['1.5'],
    [''],
  ])('%j is ignored with one note naming it', (reset) => {
    const notes: string[] = [];
    expect(q(reset, (l) => notes.push(l))).toBeUndefined();
    expect(notes).toHaveLength(1);
    expect(notes[0]).toContain(`X-RateLimit-Reset ${JSON.stringify(reset)}`);
  });
});

describe('X-RateLimit-Limit and -Remaining', () => {
  const read = (limit: string, remaining: string) =>
    quotaFromHeaders({ 'x-ratelimit-limit': limit, 'x-ratelimit-remaining': remaining, 'x-ratelimit-reset': '30' }, NOW);
  it.each([
    ['60', '7', 60, 7],
    [' 60 ', '\t7', 60, 7],
    ['0060', '0', 60, 0],
    ['9007199254740991', '1', 9007199254740991, 1],
  ])('%j / %j are whole numbers', (limit, remaining, l, r) => {
    expect(read(limit, remaining)).toMatchObject({ limit: l, remaining: r });
  });
  it.each([['6e1'], ['-1'], ['1.0'], [''], ['9007199254740993'], ['60x']])('%j makes the headers ignored', (bad) => {
    expect(read(bad, '7')).toBeUndefined();
    expect(read('60', bad)).toBeUndefined();
  });
});

describe('ApiClient: Retry-After and ban gates are clamped before they reach the limiter', () => {
  const ERR = { code: 'rate_limited', message: 'slow down', status: 429 };

  it('a Retry-After within a day but beyond --max-wait: exit 6 at once, naming the value; the gate holds it', async () => {
    const clock = new FakeClock(NOW);
    const { transport, sent } = scripted(clock, [{ status: 429, headers: { 'retry-after': '600' }, body: ERR }]);
    const client = new ApiClient(transport, { envName: 't' }, { clock, maxWaitMs: 120_000 });
    const error = await client.send({ method: 'GET', path: '/pets' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as Error).message).toContain('the server asked to wait 600s before the next request (Retry-After: 600), longer than --max-wait 120s');
    expect(sent).toHaveLength(1);
    expect((await client.limiter.state())?.gateUntil).toBe(NOW + 600_000);
  });

  it.each([['99999999999'], ['Fri, 31 Dec 9999 23:59:59 GMT'], [`1${'0'.repeat(400)}`]])(
    'Retry-After %s (beyond a day): exit 6 naming it, and the gate closes for a backoff only',
    async (value) => {
      const clock = new FakeClock(NOW);
      const { transport, sent } = scripted(clock, [{ status: 429, headers: { 'retry-after': value }, body: ERR }]);
      const client = new ApiClient(transport, { envName: 't' }, { clock, maxWaitMs: MAX_WINDOW_MS, random: () => 0.5 });
      const error = await client.send({ method: 'GET', path: '/pets' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RateLimitedError);
      expect((error as Error).message).toContain('more than a day');
      expect((error as Error).message).toContain(`(Retry-After: ${value.slice(0, 64)}`);
      expect((error as Error).message).not.toMatch(/NaN|Invalid/);
      expect(sent).toHaveLength(1);
      const gate = (await client.limiter.state())?.gateUntil ?? 0;
      expect(gate).toBeLessThanOrEqual(NOW + 1000);
    },
  );

  it("a ban's huge Retry-After closes the gate for a day at most", async () => {
    const clock = new FakeClock(NOW);
    const ban = { status: 403, headers: { 'retry-after': '99999999999' }, body: { code: 'key_banned', message: 'banned', status: 403 } };
    const { transport } = scripted(clock, [ban]);
    const client = new ApiClient(transport, { envName: 't' }, { clock });
    const res = await client.send({ method: 'GET', path: '/pets' });
    expect(res.status).toBe(403);
    expect((await client.limiter.state())?.gateUntil).toBe(NOW + MAX_WINDOW_MS);
  });
});

describe('systemClock.sleep never hands a timer more than it takes', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it.each([[2 ** 31], [30 * MAX_WINDOW_MS], [Number.POSITIVE_INFINITY], [Number.NaN]])('%s ms: no overflow, no early wake-up', async (ms) => {
    vi.useFakeTimers({ now: NOW });
    const set = vi.spyOn(globalThis, 'setTimeout');
    let done = false;
    const stop = new AbortController();
    const slept = systemClock.sleep(ms, stop.signal).then(
      () => (done = true),
      () => 'aborted',
    );
    await vi.advanceTimersByTimeAsync(2 ** 31 - 1);
    expect(done).toBe(Number.isNaN(ms));
    for (const call of set.mock.calls) expect(call[1] ?? 0).toBeLessThanOrEqual(2 ** 31 - 1);
    if (!done && Number.isFinite(ms)) {
      await vi.advanceTimersByTimeAsync(ms - (2 ** 31 - 1));
      expect(done).toBe(true);
    }
    stop.abort();
    await slept;
    set.mockRestore();
  });
});
