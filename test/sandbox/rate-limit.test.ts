import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle, type SandboxOptions } from '../../src/sandbox/server.js';
import { QuotaKeeper } from '../../src/sandbox/rate-limit.js';
import { call, createPet, errorBody, type CallResult } from './helpers.js';

function rate(r: CallResult) {
  return {
    limit: Number(r.headers.get('x-ratelimit-limit')),
    remaining: Number(r.headers.get('x-ratelimit-remaining')),
    reset: Number(r.headers.get('x-ratelimit-reset')),
    retryAfter: r.headers.get('retry-after') === null ? undefined : Number(r.headers.get('retry-after')),
  };
}

describe('sandbox rate limits (fake clock)', () => {
  let sb: SandboxHandle | undefined;
  let now = 0;
  const start = async (options: SandboxOptions) => {
    now = 1_700_000_000_250; // a quarter of a second past a whole second
    sb = await startSandbox({ keys: ['a', 'b'], clock: () => now, ...options });
    return sb;
  };
  afterEach(async () => {
    await sb?.close();
    sb = undefined;
  });

  it('windows follow each other on a fixed grid: coming back a little after a reset costs only that little', async () => {
    const s = await start({ perMinute: 2, windowMs: 3000 });
    const first = rate(await call(s, 'GET', '/v1/pets'));
    // The first window opens with the first request and ends on a whole second.
    expect(first.reset * 1000).toBe(Math.ceil((now + 3000) / 1000) * 1000);
    now = first.reset * 1000 + 5; // 5 ms after the reset
    const second = rate(await call(s, 'GET', '/v1/pets'));
    expect(second.remaining).toBe(1);
    expect(second.reset).toBe(first.reset + 3);
    // After windows nobody used, the grid still holds.
    now = second.reset * 1000 + 7000;
    expect(rate(await call(s, 'GET', '/v1/pets')).reset).toBe(second.reset + 9);
  });

  it('sends X-RateLimit-* on every response to a recognised key, and counts each one', async () => {
    const s = await start({ perMinute: 50 });
    const responses = [
      await call(s, 'GET', '/v1/pets'),
      await createPet(s, { name: 'Rex', categoryId: 1 }),
      await createPet(s, { name: 1 }),
      await call(s, 'GET', '/v1/pets/1'),
      await call(s, 'GET', '/v1/pets/42'),
      await call(s, 'GET', '/v1/pets?limit=0'),
      await call(s, 'DELETE', '/v1/pets'),
      await call(s, 'GET', '/v1/store/orders'),
      await call(s, 'GET', '/nowhere'),
    ];
    expect(responses.map((r) => r.status)).toEqual([200, 201, 400, 200, 404, 400, 405, 501, 404]);
    responses.forEach((r, i) => {
      expect(rate(r)).toMatchObject({ limit: 50, remaining: 49 - i });
      // The window opened at the first request and ends at the next whole second after 60 s.
      expect(rate(r).reset).toBe(1_700_000_061);
    });
    // An unrecognised key gets them too (every API response has them), from a window nothing counts in;
    // the key's own count is unchanged.
    const anon = await call(s, 'GET', '/v1/pets', { key: 'zzz' });
    expect(anon.status).toBe(401);
    expect(rate(anon)).toMatchObject({ limit: 50, remaining: 50 });
    expect(rate(await call(s, 'GET', '/v1/pets'))).toMatchObject({ remaining: 40 });
  });

  it('uses the plan table: free 60/1000, pro 300/10000, business 1000/100000', async () => {
    for (const [plan, perMinute, perDay] of [
      ['free', 60, 1000],
      ['pro', 300, 10_000],
      ['business', 1000, 100_000],
    ] as const) {
      const s = await start({ plan });
      expect(s.limits).toMatchObject({ plan, perMinute, perDay, windowMs: 60_000 });
      expect(rate(await call(s, 'GET', '/v1/pets'))).toMatchObject({ limit: perMinute, remaining: perMinute - 1 });
      await s.close();
    }
  });

  it('answers 429 with Retry-After over the limit, without counting it; waiting Retry-After succeeds', async () => {
    const s = await start({ perMinute: 3, windowMs: 3000 });
    for (let i = 0; i < 3; i++) expect((await call(s, 'GET', '/v1/pets')).status).toBe(200);
    now += 1000; // 1.25 s into the window, which ends at ...003 + 1 = the first whole second after open + 3 s
    const limited = await call(s, 'GET', '/v1/pets');
    expect(limited.status).toBe(429);
    expect(errorBody(limited)).toMatchObject({ code: 'rate_limited', status: 429 });
    const h = rate(limited);
    expect(h).toEqual({ limit: 3, remaining: 0, reset: 1_700_000_004, retryAfter: 3 });
    // The announced instants are whole seconds at or after the real window end.
    expect(h.reset * 1000).toBeGreaterThanOrEqual(1_700_000_000_250 + 3000);
    expect(now + h.retryAfter! * 1000).toBeGreaterThanOrEqual(h.reset * 1000);

    now += h.retryAfter! * 1000;
    const after = await call(s, 'GET', '/v1/pets');
    expect(after.status).toBe(200);
    expect(rate(after).remaining).toBe(2);
    expect(s.stats()).toMatchObject({ count429: 1, bansIssued: 0, count403bans: 0 });
  });

  it('a client that waits until X-RateLimit-Reset is not banned either', async () => {
    const s = await start({ perMinute: 1, windowMs: 1500 });
    expect((await call(s, 'GET', '/v1/pets')).status).toBe(200);
    now += 900;
    const limited = await call(s, 'GET', '/v1/pets');
    expect(limited.status).toBe(429);
    // Window opened at .250 and lasts 1.5 s (ends at .750): reset is the next whole second.
    expect(rate(limited).reset).toBe(1_700_000_002);
    expect(rate(limited).retryAfter).toBe(1);
    now = rate(limited).reset * 1000;
    expect((await call(s, 'GET', '/v1/pets')).status).toBe(200);
  });

  it('keeps Retry-After at least 1 and whole seconds for sub-second windows', async () => {
    const s = await start({ perMinute: 2, windowMs: 500 });
    await call(s, 'GET', '/v1/pets');
    await call(s, 'GET', '/v1/pets');
    now += 600; // past open + 500 ms, but the window lasts to the whole second
    const limited = await call(s, 'GET', '/v1/pets');
    expect(limited.status).toBe(429);
    expect(rate(limited)).toEqual({ limit: 2, remaining: 0, reset: 1_700_000_001, retryAfter: 1 });
    now += 1000;
    expect((await call(s, 'GET', '/v1/pets')).status).toBe(200);
  });

  it('bans a key that retries before the reset a 429 announced: 403 key_banned with Retry-After, not extended', async () => {
    const s = await start({ perMinute: 2, windowMs: 2000, banSeconds: 10 });
    await call(s, 'GET', '/v1/pets');
    await call(s, 'GET', '/v1/pets');
    expect((await call(s, 'GET', '/v1/pets')).status).toBe(429);
    now += 500; // retry too early
    const banned = await call(s, 'GET', '/v1/pets');
    expect(banned.status).toBe(403);
    expect(errorBody(banned)).toMatchObject({ code: 'key_banned', status: 403 });
    // The ban ends at the next whole second after 10 s.
    expect(rate(banned).retryAfter).toBe(10);
    expect(banned.headers.get('x-ratelimit-limit')).not.toBeNull();

    now += 4000; // requests during the ban get 403 and do not extend it
    const still = await createPet(s, { name: 'Rex', categoryId: 1 });
    expect(still.status).toBe(403);
    expect(rate(still).retryAfter).toBe(6);
    expect(s.pets()).toHaveLength(0);

    // The other key is not affected.
    expect((await call(s, 'GET', '/v1/pets', { key: 'b' })).status).toBe(200);

    now += 6000;
    const free = await call(s, 'GET', '/v1/pets');
    expect(free.status).toBe(200);
    expect(s.stats()).toMatchObject({ count429: 1, bansIssued: 1, count403bans: 2 });
  });

  it('bans by default for 5 windows', async () => {
    const s = await start({ perMinute: 1, windowMs: 3000 });
    expect(s.limits.banSeconds).toBe(15);
    await call(s, 'GET', '/v1/pets');
    await call(s, 'GET', '/v1/pets');
    const banned = await call(s, 'GET', '/v1/pets');
    expect(banned.status).toBe(403);
    expect(rate(banned).retryAfter).toBe(15);
  });

  it('tolerates a retry within the grace of 100 ms before the reset', async () => {
    const s = await start({ perMinute: 1, windowMs: 1000 });
    await call(s, 'GET', '/v1/pets'); // window .250 -> ends 1_700_000_002 (ceil of 1.250)
    const limited = await call(s, 'GET', '/v1/pets');
    const resetMs = rate(limited).reset * 1000;
    now = resetMs - 50;
    const early = await call(s, 'GET', '/v1/pets');
    expect(early.status).toBe(429); // still limited, but not banned
    now = resetMs;
    expect((await call(s, 'GET', '/v1/pets')).status).toBe(200);
  });

  it('--no-ban: early retries keep getting 429, never 403', async () => {
    const s = await start({ perMinute: 1, ban: false });
    await call(s, 'GET', '/v1/pets');
    for (let i = 0; i < 5; i++) {
      const r = await call(s, 'GET', '/v1/pets');
      expect(r.status).toBe(429);
      now += 100;
    }
    expect(s.stats().bansIssued).toBe(0);
  });

  it('limits each key separately', async () => {
    const s = await start({ perMinute: 2 });
    await call(s, 'GET', '/v1/pets', { key: 'a' });
    await call(s, 'GET', '/v1/pets', { key: 'a' });
    expect((await call(s, 'GET', '/v1/pets', { key: 'a' })).status).toBe(429);
    const b = await call(s, 'GET', '/v1/pets', { key: 'b' });
    expect(b.status).toBe(200);
    expect(rate(b).remaining).toBe(1);
  });

  it('reports the most constrained window, and the day limit with its own reset', async () => {
    const s = await start({ perMinute: 10, perDay: 12, windowMs: 60_000 });
    const first = await call(s, 'GET', '/v1/pets');
    expect(rate(first)).toMatchObject({ limit: 10, remaining: 9, reset: 1_700_000_061 });
    for (let i = 0; i < 9; i++) await call(s, 'GET', '/v1/pets');
    now += 61_000; // new minute window: 10 left in it, but only 2 left today
    const r = await call(s, 'GET', '/v1/pets');
    expect(rate(r)).toMatchObject({ limit: 12, remaining: 1, reset: 1_700_086_401 });
    await call(s, 'GET', '/v1/pets');
    const limited = await call(s, 'GET', '/v1/pets');
    expect(limited.status).toBe(429);
    expect(errorBody(limited).message).toContain('per day');
    const h = rate(limited);
    expect(h).toMatchObject({ limit: 12, remaining: 0, reset: 1_700_086_401 });
    expect(h.retryAfter).toBe(1_700_086_401 - 1_700_000_061);
  });

  it('resetRateLimits() forgets counts and bans', async () => {
    const s = await start({ perMinute: 1 });
    await call(s, 'GET', '/v1/pets');
    await call(s, 'GET', '/v1/pets');
    expect((await call(s, 'GET', '/v1/pets')).status).toBe(403);
    s.resetRateLimits();
    expect((await call(s, 'GET', '/v1/pets')).status).toBe(200);
  });
});

describe('QuotaKeeper', () => {
  it('never reports a negative remaining and never counts rejected requests', () => {
    const rl = new QuotaKeeper({ perMinute: 2, windowMs: 1000, perDay: 3, dayWindowMs: 10_000, ban: false, banSeconds: 5, banGraceMs: 0 });
    let t = 1000.5;
    const seen: number[] = [];
    for (let i = 0; i < 50; i++) {
      const d = rl.check('k', t);
      seen.push(d.headers.remaining);
      t += 137;
    }
    expect(Math.min(...seen)).toBe(0);
    // 3 per 10 s day window within about 6.8 s: exactly 3 allowed.
    let allowed = 0;
    const rl2 = new QuotaKeeper({ perMinute: 2, windowMs: 1000, perDay: 3, dayWindowMs: 10_000, ban: false, banSeconds: 5, banGraceMs: 0 });
    t = 1000.5;
    for (let i = 0; i < 50; i++, t += 137) if (rl2.check('k', t).kind === 'allow') allowed++;
    expect(allowed).toBe(3);
  });
});
