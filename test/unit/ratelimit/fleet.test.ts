// Pacing for a fleet that shares a key and nothing else (src/ratelimit/fleet.ts): what one process learns
// from X-RateLimit-Remaining, and N limiters with separate stores against the sandbox's own limiter on the
// fake clock (the e2e run with real processes: test/slow/fleet.test.ts).
import { describe, expect, it } from 'vitest';
import { call } from '../../../src/api/pets.js';
import { ApiClient } from '../../../src/http/api-client.js';
import { FleetEstimator, quotaWindow } from '../../../src/ratelimit/fleet.js';
import { MemoryRateStateStore } from '../../../src/ratelimit/key-state.js';
import { RateLimiter } from '../../../src/ratelimit/limiter.js';
import type { Quota } from '../../../src/ratelimit/quota.js';
import type { Clock } from '../../../src/time/clock.js';
import { FakeClock } from '../http/fake-clock.js';
import { modelServer, scripted } from '../http/transport-fakes.js';
import { rateLimitGiveUp, waitTooLong } from '../../../src/ratelimit/give-up.js';
import { RateLimitedError } from '../../../src/errors/errors.js';

const T0 = Date.UTC(2030, 0, 1, 12, 0, 0);
const GET = { method: 'GET', path: '/pets' } as const;
const q = (remaining: number, seenAt: number, resetAt = T0 + 60_000, limit = 100): Quota => ({ limit, remaining, resetAt, seenAt });

describe('FleetEstimator', () => {
  it('alone (no gaps between its own answers): keeps nothing for others', () => {
    const f = new FleetEstimator();
    for (let i = 0; i < 10; i++) f.observe(q(99 - i, T0 + i * 10), 5);
    expect(f.active).toBe(false);
    expect(f.reserve(T0 + 1000)).toBe(0);
  });

  it('the drop between its own answers less its own requests is the others’ use: their rate and a margin for them', () => {
    const f = new FleetEstimator();
    // Each 10 ms: one own request counted, and 3 of others in between (remaining drops by 4).
    for (let i = 0; i < 5; i++) f.observe(q(99 - 4 * i, T0 + 10 * i), 10);
    expect(f.active).toBe(true);
    // 12 others' requests in 40 ms.
    expect(f.othersPerMs * 1000).toBeCloseTo(300, 0);
    // Right after the latest answer: the others' requests during one round trip (3) + 1.
    expect(f.reserve(T0 + 40)).toBe(4);
    // The longer since the latest answer, the more of what it saw the others have probably used.
    expect(f.reserve(T0 + 140)).toBe(34);
  });

  it('answers arriving out of order count the same', () => {
    const f = new FleetEstimator();
    for (const r of [99, 95, 97, 91, 93]) f.observe(q(r, T0 + (99 - r) * 2), 4);
    // 99..91: 9 values, 5 own: 4 others.
    expect(f.active).toBe(true);
    expect(f.othersPerMs * 1000).toBeGreaterThan(0);
  });

  it('the pace carries over to the next window, and fades in windows where no one else shows', () => {
    const f = new FleetEstimator();
    for (let i = 0; i < 5; i++) f.observe(q(99 - 4 * i, T0 + 10 * i), 10);
    const before = f.othersPerMs * 1000;
    // Next window: first answer only, the estimate holds.
    f.observe(q(99, T0 + 60_100, T0 + 120_000), 10);
    expect(f.othersPerMs * 1000).toBe(before);
    expect(f.reserve(T0 + 60_100)).toBeGreaterThan(1);
    // A quiet window (no gaps over a long span): the rate drops.
    for (let i = 1; i < 10; i++) f.observe(q(99 - i, T0 + 60_100 + 100 * i, T0 + 120_000), 10);
    expect(f.othersPerMs * 1000).toBeLessThan(before / 10);
  });

  it('alone with eight requests out, answered in any order: no one else (a gap a request still out may fill is its own)', () => {
    const f = new FleetEstimator();
    // Requests 1..8 leave in that order (within one millisecond); the server counts them in that order,
    // so request n is answered with remaining 100 - n; the answers come back shuffled.
    const out = new Set([1, 2, 3, 4, 5, 6, 7, 8]);
    let next = 9;
    for (let round = 0; round < 50; round++) {
      for (const n of [3, 1, 2, 6, 4, 5, 8, 7].map((k) => k + round * 8)) {
        out.delete(n);
        f.observe(q(1000 - n, T0 + round), 1, true, n, out);
        out.add(next++);
      }
    }
    expect(f.active).toBe(false);
    expect(f.reserve(T0 + 100)).toBe(0);
  });

  it('keeps at least the most the others sent between two of its answers (as many as may be on their way at once), however low their average rate', () => {
    const f = new FleetEstimator();
    // Own answers 100 ms apart; once, 7 others' requests between two of them (seven processes going
    // one request at a time), else none: 7 in 400 ms is a low rate, but 7 can be in flight together.
    for (const [i, r] of [99, 98, 90, 89, 88].entries()) f.observe(q(r, T0 + 100 * i), 2);
    expect(f.active).toBe(true);
    expect(f.othersPerMs * 1000).toBeLessThan(20);
    // Right after its latest answer: the rate alone would keep 1 (+1).
    expect(f.reserve(T0 + 400)).toBe(8);
  });

  it('a 429 (not counted) is no gap', () => {
    const f = new FleetEstimator();
    f.observe(q(5, T0), 5);
    f.observe(q(0, T0 + 5), 5, false);
    f.observe(q(4, T0 + 10), 5);
    expect(f.active).toBe(false);
  });
});

describe('RateLimiter with others on other machines', () => {
  it('stops before Remaining reaches 0: what the others will use is kept, and the wait says so', async () => {
    const clock = new FakeClock(T0);
    const limiter = new RateLimiter({ clock, key: 'k' });
    // Its own answers, one at a time, 10 ms each: 3 others' requests counted between each two.
    for (const r of [99, 95, 91, 87, 6]) {
      const p = await limiter.acquire();
      await clock.sleep(10);
      await p.settle({ quota: q(r, clock.now()) });
    }
    expect(limiter.fleet).toMatchObject({ active: true });
    // 6 left, but the others take about 3 in a round trip (+1 kept): it waits for the reset.
    const waits: Array<{ kept?: number | undefined; reason: string }> = [];
    const error = await Promise.resolve(limiter.acquire({ maxWaitMs: 1000, onWait: (w) => void waits.push(w) })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as Error).message).toMatch(/^minute limit reached \(\d\/100 left\): waiting for the minute window would take/);
    const later = await limiter.acquire({ maxWaitMs: 120_000, onWait: (w) => void waits.push(w) });
    expect(waits[0]).toMatchObject({ reason: 'quota' });
    expect(waits[0]!.kept).toBeGreaterThan(0);
    expect(clock.now()).toBeGreaterThanOrEqual(T0 + 60_000);
    expect(later.probe).toBe(true);
  });
});

describe('others counted by a shared budget (--limiter)', () => {
  it('while the budget counts them, nothing is kept back for them; once it is down, their share is kept again', async () => {
    const clock = new FakeClock(T0);
    let counting = true;
    const limiter = new RateLimiter({ clock, key: 'k', othersCounted: () => counting });
    for (const r of [99, 95, 91, 87, 6]) {
      const p = await limiter.acquire();
      await clock.sleep(10);
      await p.settle({ quota: q(r, clock.now()) });
    }
    expect(limiter.fleet).toMatchObject({ active: true });
    // 6 left: the budget in Redis says whether the fleet may send; the limiter does not hold back.
    const p = await limiter.acquire({ maxWaitMs: 1000 });
    expect(clock.now()).toBeLessThan(T0 + 1000);
    await clock.sleep(10);
    await p.settle({ quota: q(5, clock.now()) });
    // Redis gone: the estimate applies again (3 others per round trip, kept), so it waits for the reset.
    counting = false;
    const waits: Array<{ kept?: number | undefined }> = [];
    await limiter.acquire({ maxWaitMs: 120_000, onWait: (w) => void waits.push(w) });
    expect(waits[0]!.kept).toBeGreaterThan(0);
    expect(clock.now()).toBeGreaterThanOrEqual(T0 + 60_000);
  });
});

describe('late into a window the others use up in a fraction of it', () => {
  const W = 3000;
  const R1 = T0 + W;
  const R2 = R1 + W;
  const R3 = R2 + W;
  const R4 = R3 + W;
  type Wait = { reason: string; until: number; usedByOthers?: boolean | undefined };

  /**
   * The first window's answers show the others using 60 requests a second (3 between two own answers
   * 50 ms apart: 40 in about 0.7 s); it waits for the reset, and the second window's answers show its
   * length. Then it waits for the second window's reset, and its sleeps of a second or more end late
   * by the next of `late` (ms) each.
   */
  async function fleetWait(late: number[]) {
    const clock = new FakeClock(T0 + 10);
    const lateness = [...late];
    let lateOn = false;
    const own: Clock = { now: () => clock.now(), sleep: (ms, signal) => clock.sleep(ms >= 1000 && lateOn ? ms + (lateness.shift() ?? 0) : ms, signal) };
    const limiter = new RateLimiter({ clock: own, key: 'k', marginMs: 0 });
    const one = async (remaining: number, resetAt: number) => {
      const p = await limiter.acquire({ maxWaitMs: 60_000 });
      await clock.sleep(10);
      await p.settle({ quota: q(remaining, clock.now(), resetAt, 40) });
      await clock.sleep(40);
    };
    for (const r of [39, 35, 31, 27]) await one(r, R1);
    clock.advance(R1 - 500 - clock.now());
    for (const r of [39, 35, 31, 27]) await one(r, R2);
    expect(clock.now()).toBeGreaterThan(R1);
    clock.advance(R2 - 1500 - clock.now());
    lateOn = true;
    const waits: Wait[] = [];
    const next = await limiter.acquire({ maxWaitMs: 60_000, onWait: (w) => void waits.push(w) });
    return { clock, limiter, next, waits };
  }

  it('back on time from a wait for the reset: it sends at once', async () => {
    const { clock, next, waits } = await fleetWait([]);
    expect(waits.map((w) => w.reason)).toEqual(['quota']);
    expect(clock.now()).toBe(R2);
    expect(next.probe).toBe(true);
  });

  it('back 700 ms late (a starved or paused process), when the others have used that window up: it waits for the next one, and says why', async () => {
    const { clock, next, waits } = await fleetWait([700]);
    expect(waits.map((w) => w.reason)).toEqual(['quota', 'quota']);
    expect(waits[0]!.usedByOthers).toBeUndefined();
    expect(waits[1]).toMatchObject({ until: R3, usedByOthers: true });
    expect(clock.now()).toBe(R3);
    expect(next.probe).toBe(true);
  });

  it('late again from that wait: it sends (a process always late would otherwise never send)', async () => {
    const { clock, next, waits } = await fleetWait([700, 700]);
    expect(waits.map((w) => w.reason)).toEqual(['quota', 'quota']);
    expect(clock.now()).toBe(R3 + 700);
    expect(next.probe).toBe(true);
  });

  it('a 429 there: its whole-second Retry-After ends 700 ms into the next window, so it waits for the one after', async () => {
    const { clock, limiter, next } = await fleetWait([700, 700]);
    await clock.sleep(10);
    await next.settle({ quota: q(0, clock.now(), R4, 40), gateUntil: clock.now() + 3000 });
    const waits: Wait[] = [];
    const after = await limiter.acquire({ maxWaitMs: 60_000, onWait: (w) => void waits.push(w) });
    expect(waits.map((w) => w.reason)).toEqual(['gate', 'quota']);
    expect(waits[0]!.until).toBe(R4 + 710);
    expect(waits[1]).toMatchObject({ until: R4 + W, usedByOthers: true });
    expect(clock.now()).toBe(R4 + W);
    expect(after.probe).toBe(true);
  });
});

describe('quotaWindow: which limit binds', () => {
  it('a reset further ahead than a minute window can be is the daily limit', () => {
    expect(quotaWindow(q(3, T0, T0 + 5 * 3600_000, 1000))).toBe('day');
    expect(quotaWindow(q(3, T0, T0 + 42_000, 60))).toBe('minute');
  });
  it('two windows seen from one key: the larger limit that resets later is the daily one, however close its reset', () => {
    const minute = q(10, T0, T0 + 2000, 20);
    expect(quotaWindow(q(3, T0 + 500, T0 + 9000, 50), minute)).toBe('day');
    expect(quotaWindow(q(3, T0 + 500, T0 + 9000, 10), minute)).toBe('minute');
  });
});

describe('the daily limit named in messages', () => {
  const day = (remaining: number, resetAt: number, limit = 1000) => ({
    status: 200,
    headers: { 'x-ratelimit-limit': String(limit), 'x-ratelimit-remaining': String(remaining), 'x-ratelimit-reset': String(resetAt / 1000) },
    body: [],
  });

  it('the wait for its reset is announced as the daily limit', async () => {
    const clock = new FakeClock(T0);
    const { transport } = scripted(clock, [day(0, T0 + 3 * 3600_000), day(999, T0 + 27 * 3600_000)]);
    const lines: string[] = [];
    const client = new ApiClient(transport, { envName: 't' }, { clock, maxWaitMs: 4 * 3600_000, onWait: (n) => void lines.push(n.text(n.ms)) });
    await call(client, GET);
    await call(client, GET);
    expect(lines).toEqual(['daily limit reached (0/1000 left); waiting 10801s for the daily window to reset']);
  });

  it('exit 6 (longer than --max-wait) names it, and when it resets', async () => {
    const clock = new FakeClock(T0);
    const { transport, sent } = scripted(clock, [day(0, T0 + 3 * 3600_000)]);
    const client = new ApiClient(transport, { envName: 't' }, { clock, maxWaitMs: 120_000 });
    await call(client, GET);
    const error = await call(client, GET).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as Error).message).toMatch(
      /^daily limit reached \(0\/1000 left\): waiting for the daily window would take 10801s, longer than --max-wait 120s; the daily limit resets at .* \(in 1080\ds\)$/,
    );
    expect(sent).toHaveLength(1);
  });

  it('a 429 by the daily limit, and running out of retries, say so too', () => {
    const dayQuota = { limit: 1000, remaining: 0, resetAt: T0 + 7_200_000, seenAt: T0 };
    const gate = waitTooLong('gate', T0 + 7_200_000, 120_000, dayQuota, 'day', false, T0);
    expect(gate.message).toMatch(/^rate limited by the daily limit \(0\/1000 left\): the server asked to wait 7200s .*; the daily limit resets at/);
    const retries = rateLimitGiveUp(3, 'day', T0 + 60_000, T0);
    expect(retries.message).toMatch(/^rate limited by the daily limit: still limited after 3 retries; the daily limit resets at/);
    // The minute window keeps its words.
    expect(rateLimitGiveUp(3, undefined, T0 + 60_000, T0).message).toMatch(/^rate limited: still limited after 3 retries; the limit resets at/);
  });
});

async function fleet(opts: {
  processes: number;
  perProcess: number;
  perWindow: number;
  windowMs: number;
  concurrency: number;
  maxLatency: number;
  /** Process i starts i × stagger ms after the first. */
  stagger?: number;
  /** The first `late` processes wake this many ms late from each wait of a second or more (a paused VM, a starved CPU). */
  oversleepMs?: number;
  late?: number;
}) {
  const clock = new FakeClock(T0 + 321);
  let seed = 11;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const server = modelServer(clock, { perWindow: opts.perWindow, windowMs: opts.windowMs, latency: () => 1 + Math.floor(random() * opts.maxLatency) });
  // Separate stores: nothing shared but the key (separate machines), batch on as in the CLI.
  const oversleep = opts.oversleepMs ?? 0;
  // Late from every other wait (the lateness comes and goes, as a loaded runner's does).
  let wakes = 0;
  const sleeper: Clock = { now: () => clock.now(), sleep: (ms, signal) => clock.sleep(ms >= 1000 && wakes++ % 2 === 0 ? ms + oversleep : ms, signal) };
  const clients = Array.from({ length: opts.processes }, (_, i) => {
    const own = i < (opts.late ?? 0) ? sleeper : clock;
    return new ApiClient(
      server.transport,
      { envName: 't' },
      { clock: own, maxWaitMs: 600_000, limiter: new RateLimiter({ clock: own, key: 'k', store: new MemoryRateStateStore(), batch: true }) },
    );
  });
  const start = clock.now();
  await Promise.all(
    clients.map(async (c, i) => {
      await clock.sleep(i * (opts.stagger ?? 0));
      let next = 0;
      const worker = async () => {
        while (next < opts.perProcess) {
          next++;
          expect((await call(c, GET)).status).toBe(200);
        }
      };
      await Promise.all(Array.from({ length: opts.concurrency }, worker));
      await c.close();
    }),
  );
  const ideal = ((opts.processes * opts.perProcess) / opts.perWindow) * opts.windowMs;
  return { server, ratio: (clock.now() - start) / ideal };
}

describe('a fleet on separate stores against the sandbox limiter (fake clock)', () => {
  // The sandbox's windows end on whole seconds (and petstore waits 250 ms past a reset), so even one
  // process takes ~1.2× plan-ideal over many 3 s windows: the fleet is compared with one process
  // seeding the same records on the same server, and with the plan-ideal.
  const records = 480;
  const shape = { perWindow: 40, windowMs: 3000, concurrency: 4, maxLatency: 8 };
  for (const processes of [4, 8]) {
    it(`${processes} processes, concurrency 4, a binding limit: zero 429s and bans, each request once, close to one process's time`, async () => {
      const alone = await fleet({ processes: 1, perProcess: records, ...shape });
      const { server, ratio } = await fleet({ processes, perProcess: records / processes, ...shape });
      console.info(
        `fleet of ${processes}: ${server.count(200)} × 200, ${server.count(429)} × 429, ${server.count(403)} × 403, wall ÷ plan-ideal ${ratio.toFixed(2)} (one process: ${alone.ratio.toFixed(2)})`,
      );
      expect(server.count(200)).toBe(records);
      expect(server.count(403)).toBe(0);
      expect(server.count(429)).toBeLessThanOrEqual(2);
      // At the end of each window about one request per other process is kept back (fleet.ts): the
      // price of no ban without anything shared.
      expect(ratio).toBeLessThanOrEqual(alone.ratio * 1.3);
    });
  }

  // CI jobs do not start at one instant: processes that join while the others are using up the window.
  for (const stagger of [150, 300]) {
    it(`4 processes starting ${stagger} ms apart: zero bans, each request once`, async () => {
      const { server, ratio } = await fleet({ processes: 4, perProcess: records / 4, ...shape, maxLatency: 50, stagger });
      console.info(
        `staggered ${stagger} ms: ${server.count(200)} × 200, ${server.count(429)} × 429, ${server.count(403)} × 403, wall ÷ plan-ideal ${ratio.toFixed(2)}`,
      );
      expect(server.count(403)).toBe(0);
      expect(server.count(200)).toBe(records);
      expect(server.count(429)).toBeLessThanOrEqual(2);
    });
  }

  // A process whose first request lands in a window the others have used up gets a 429 it could not
  // foresee: it honours the whole Retry-After, and the others (who saw Remaining 0) wait for the reset too.
  for (const stagger of [700, 1100]) {
    it(`a process joining ${stagger} ms later, into a used-up window: its one 429 is honoured, no ban`, async () => {
      const { server } = await fleet({ processes: 2, perProcess: records / 2, ...shape, maxLatency: 50, stagger });
      expect(server.count(403)).toBe(0);
      expect(server.count(200)).toBe(records);
      expect(server.count(429)).toBeLessThanOrEqual(1);
    });
  }

  // Processes that wake late from every other wait (a loaded runner, a paused VM) come back into windows
  // the others have partly or wholly used: still zero bans and each request once (the rule for one such
  // return, with its exact waits: 'late into a window …' above).
  for (const [late, oversleepMs] of [
    [1, 400],
    [1, 1300],
    [2, 400],
    [2, 700],
    [2, 1300],
  ] as const) {
    it(`8 processes, ${late} waking ${oversleepMs} ms late from each wait: zero bans, each request once`, async () => {
      const { server } = await fleet({ processes: 8, perProcess: records / 8, ...shape, maxLatency: 50, oversleepMs, late });
      if (process.env.FLEET_DUMP) console.info(server.log.map((e) => `${e.at - T0} ${e.status} ${e.remaining}`).join('\n'));
      console.info(`${late} of 8 waking ${oversleepMs} ms late: ${server.count(200)} × 200, ${server.count(429)} × 429, ${server.count(403)} × 403`);
      expect(server.count(403)).toBe(0);
      expect(server.count(200)).toBe(records);
      expect(server.count(429)).toBeLessThanOrEqual(2);
    });
  }

  it('4 processes and the daily limit binds: zero bans, at most a few 429s, each stops naming the daily limit', async () => {
    const clock = new FakeClock(T0 + 321);
    const server = modelServer(clock, { perWindow: 60, windowMs: 60_000, perDay: 100, latency: () => 20 });
    const outcomes = await Promise.all(
      Array.from({ length: 4 }, async () => {
        const c = new ApiClient(
          server.transport,
          { envName: 't' },
          { clock, maxWaitMs: 120_000, limiter: new RateLimiter({ clock, key: 'k', store: new MemoryRateStateStore(), batch: true }) },
        );
        let created = 0;
        let next = 0;
        const worker = async () => {
          while (next < 40) {
            next++;
            await call(c, GET);
            created++;
          }
        };
        const error = await Promise.all(Array.from({ length: 4 }, worker)).then(
          () => undefined,
          (e: unknown) => e,
        );
        await c.close();
        return { created, error };
      }),
    );
    // The day's 100, less the one or two each keeps back for the others' requests in flight.
    expect(server.count(200)).toBeGreaterThanOrEqual(95);
    expect(outcomes.reduce((n, o) => n + o.created, 0)).toBe(server.count(200));
    expect(server.count(403)).toBe(0);
    expect(server.count(429)).toBeLessThanOrEqual(2);
    for (const o of outcomes) {
      expect(o.error).toBeInstanceOf(RateLimitedError);
      expect((o.error as Error).message).toMatch(/daily limit/);
    }
  });
});
