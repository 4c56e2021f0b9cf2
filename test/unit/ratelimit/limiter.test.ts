import { describe, expect, it } from 'vitest';
import { InterruptedError, RateLimitedError } from '../../../src/errors/errors.js';
import { thisHost } from '../../../src/fs/local-process.js';
import {
  deadHolder,
  decide,
  emptyState,
  mergeQuota,
  MemoryRateStateStore,
  pruneLeases,
  slotCount,
  type KeyRateState,
} from '../../../src/ratelimit/key-state.js';
import { RateLimiter } from '../../../src/ratelimit/limiter.js';
import type { Quota } from '../../../src/ratelimit/quota.js';
import { FakeClock } from '../http/fake-clock.js';

const T0 = Date.UTC(2030, 0, 1, 12, 0, 0);
const quota = (remaining: number, resetAt = T0 + 10_000, limit = 5, seenAt = T0): Quota => ({ limit, remaining, resetAt, seenAt });
const state = (over: Partial<KeyRateState> = {}): KeyRateState => ({ ...emptyState(), ...over });
const leases = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`l${i}`, T0 + 60_000]));

describe('decide', () => {
  it('unknown quota, nothing in flight: one probe goes', () => {
    expect(decide(state(), T0, 250)).toEqual({ kind: 'go', probe: true });
  });

  it('unknown quota with a request in flight: wait for its headers', () => {
    expect(decide(state({ leases: leases(1) }), T0, 250)).toEqual({ kind: 'poll' });
  });

  it("a block's one entry counts as all its slots", () => {
    const block = { [`${process.pid}@${thisHost}/a~0*3`]: T0 + 60_000 };
    expect(slotCount(block)).toBe(3);
    expect(slotCount({ ...block, x: T0 + 60_000 })).toBe(4);
    expect(decide(state({ quota: quota(4), leases: block }), T0, 250)).toEqual({ kind: 'go', probe: false });
    // Another holder's unused block: poll for it instead of waiting for the reset.
    expect(decide(state({ quota: quota(3), leases: { '1@h/b~0*3': T0 + 60_000 } }), T0, 250)).toEqual({ kind: 'poll' });
  });

  it('known quota: at most `remaining` requests in flight', () => {
    expect(decide(state({ quota: quota(3), leases: leases(2) }), T0, 250)).toEqual({ kind: 'go', probe: false });
    expect(decide(state({ quota: quota(3), leases: leases(3) }), T0, 250)).toEqual({ kind: 'wait', reason: 'quota', until: T0 + 10_250 });
  });

  it('remaining 0: wait for the reset plus the margin instead of provoking a 429', () => {
    expect(decide(state({ quota: quota(0) }), T0, 250)).toEqual({ kind: 'wait', reason: 'quota', until: T0 + 10_250 });
    expect(decide(state({ quota: quota(0) }), T0 + 10_249, 250).kind).toBe('wait');
  });

  it('a window that has ended is unknown again: probe', () => {
    expect(decide(state({ quota: quota(0) }), T0 + 10_250, 250)).toEqual({ kind: 'go', probe: true });
    expect(decide(state({ quota: quota(0), leases: leases(1) }), T0 + 10_250, 250)).toEqual({ kind: 'poll' });
  });

  it('a closed gate wins over everything', () => {
    expect(decide(state({ quota: quota(5), gateUntil: T0 + 3000 }), T0, 250)).toEqual({ kind: 'wait', reason: 'gate', until: T0 + 3000 });
    expect(decide(state({ quota: quota(5), gateUntil: T0 + 3000 }), T0 + 3000, 250).kind).toBe('go');
  });

  it('expired leases are dropped', () => {
    const s = state({ leases: { old: T0 - 1, live: T0 + 1 } });
    pruneLeases(s, T0);
    expect(Object.keys(s.leases)).toEqual(['live']);
  });

  it("a process of this host that is gone: its slots are dropped at once; other hosts' and old ids lapse", () => {
    const dead = 4_000_001;
    const s = state({
      leases: {
        [`${dead}@${thisHost}/k1#0`]: T0 + 60_000,
        [`${dead}@${thisHost}/k1~1`]: T0 + 60_000,
        [`${dead}@other-host/k1#0`]: T0 + 60_000,
        [`${process.pid}@${thisHost}/k2#0`]: T0 + 60_000,
        [`${dead}.k3#0`]: T0 + 60_000,
      },
    });
    pruneLeases(
      s,
      T0,
      deadHolder((pid) => pid !== dead),
    );
    expect(Object.keys(s.leases).sort()).toEqual([`${dead}.k3#0`, `${dead}@other-host/k1#0`, `${process.pid}@${thisHost}/k2#0`].sort());
  });
});

describe('a run killed with its slots reserved (kill -9)', () => {
  it('the next one goes at once instead of waiting for them to lapse', async () => {
    const clock = new FakeClock(T0);
    const store = new MemoryRateStateStore();
    const dead = 4_000_002;
    // 5 of 5 remaining reserved by a process that is gone, in a window that ended.
    await store.update('k', (s) => {
      s.quota = quota(5, T0 - 1000);
      for (let i = 0; i < 5; i++) s.leases[`${dead}@${thisHost}/x${i}#0`] = T0 + 60_000;
    });
    const limiter = new RateLimiter({ clock, key: 'k', store, processAlive: (pid) => pid !== dead });
    const permit = await limiter.acquire({ maxWaitMs: 0 });
    expect(permit.probe).toBe(true);
    expect(clock.now()).toBe(T0);
  });
});

describe('mergeQuota', () => {
  it('within one window the lowest remaining wins, whatever the arrival order', () => {
    expect(mergeQuota(quota(2), quota(4, T0 + 10_000, 5, T0 + 5)).remaining).toBe(2);
    expect(mergeQuota(quota(4), quota(2, T0 + 10_000, 5, T0 - 5)).remaining).toBe(2);
  });

  it('a different window: the later window wins, whichever answer arrived last', () => {
    expect(mergeQuota(quota(0), quota(4, T0 + 20_000, 5, T0 + 1))).toEqual(quota(4, T0 + 20_000, 5, T0 + 1));
    expect(mergeQuota(quota(4, T0 + 20_000, 5, T0 + 1), quota(0, T0 + 10_000, 5, T0))).toEqual(quota(4, T0 + 20_000, 5, T0 + 1));
    // A slow answer from the previous window, received after the new window's first one.
    expect(mergeQuota(quota(4, T0 + 20_000, 5, T0 + 1), quota(0, T0 + 10_000, 5, T0 + 2))).toEqual(quota(4, T0 + 20_000, 5, T0 + 1));
  });

  it('nothing stored: takes the new one', () => {
    expect(mergeQuota(undefined, quota(3))).toEqual(quota(3));
  });

  it('an answer to a request sent after the stored quota was seen is the newer word, even for a window that resets sooner', () => {
    const daily = quota(0, T0 + 86_400_000, 1000, T0);
    const minute = quota(59, T0 + 40_000, 60, T0 + 5000);
    // Sent after the daily figure came: the server's windows changed (a restart, a new plan).
    expect(mergeQuota(daily, minute, T0 + 1)).toEqual(minute);
    // Sent before it (concurrent requests, answers out of order): the later window still wins.
    expect(mergeQuota(daily, minute, T0 - 1)).toEqual(daily);
    expect(mergeQuota(daily, minute)).toEqual(daily);
  });
});

describe('RateLimiter', () => {
  it('lets one probe out, then as many as the headers allow, and holds the rest until the reset', async () => {
    const clock = new FakeClock(T0);
    // Made-up answers whose Remaining jumps would read as others using the key (src/ratelimit/fleet.ts): fleet pacing off.
    const limiter = new RateLimiter({ clock, key: 'k', fleet: false });
    const started: number[] = [];
    let inFlight = 0;
    let maxInFlight = 0;
    let remaining = 3;
    const resetAt = T0 + 2000;
    const work = async (i: number) => {
      const permit = await limiter.acquire();
      started.push(i);
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await clock.sleep(100);
      inFlight--;
      const now = clock.now();
      const r = now >= resetAt ? 4 : --remaining;
      await permit.settle({ quota: { limit: 4, remaining: r, resetAt: now >= resetAt ? resetAt + 2000 : resetAt, seenAt: now } });
      return now;
    };
    const first = work(0);
    await new Promise((r) => setImmediate(r));
    const rest = [1, 2, 3, 4].map(work);
    const ends = await Promise.all([first, ...rest]);
    // The probe alone; its answer says 2 left, so two go together; then 0 left: the rest wait for the reset,
    // where one probes the new window alone before the last one follows.
    expect(maxInFlight).toBe(2);
    expect(started).toHaveLength(5);
    // The ones after the quota ran out waited for reset + margin.
    const late = ends.filter((t) => t > resetAt);
    expect(late.length).toBeGreaterThan(0);
    for (const t of late) expect(t).toBeGreaterThanOrEqual(resetAt + 250 + 100);
  });

  it('a wait longer than max-wait fails with RateLimitedError naming the reset', async () => {
    const clock = new FakeClock(T0);
    const store = new MemoryRateStateStore();
    await store.update('k', (s) => void (s.quota = quota(0, T0 + 90_000)));
    const limiter = new RateLimiter({ clock, key: 'k', store });
    const error = await Promise.resolve(limiter.acquire({ maxWaitMs: 60_000 })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as Error).message).toMatch(/longer than --max-wait 60s; the minute limit resets at \d\d:\d\d:\d\d \(in 90s\)/);
    expect(clock.sleeps).toEqual([]);
  });

  it('a quota an earlier command saw used up, beyond max-wait: the message says whose figures they are, and a request that asks the server (asksQuota) goes alone', async () => {
    const clock = new FakeClock(T0);
    const store = new MemoryRateStateStore();
    // Seen by an earlier command, ten minutes ago: a day's limit used up.
    await store.update('k', (s) => void (s.quota = quota(0, T0 + 86_000_000, 1000, T0 - 600_000)));
    const limiter = new RateLimiter({ clock, key: 'k', store });
    const error = await Promise.resolve(limiter.acquire({ maxWaitMs: 60_000 })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as Error).message).toMatch(/^daily limit reached \(0\/1000 left, as the server said at \d\d:\d\d:\d\d\): waiting for the daily window/);
    expect((error as RateLimitedError).advice).toMatch(/run "petstore quota": it asks the server/);

    const permit = await limiter.acquire({ maxWaitMs: 60_000, asksQuota: true });
    expect(permit.probe).toBe(true);
    expect(clock.sleeps).toEqual([]);
    // The server's windows were reset and the plan changed: its answer (a minute window, resetting sooner) is the quota now.
    const fresh = quota(299, T0 + 30_000, 300, T0 + 20);
    clock.advance(20);
    await permit.settle({ quota: fresh });
    await limiter.close();
    expect((await store.get('k'))?.quota).toEqual(fresh);
    const next = await limiter.acquire({ maxWaitMs: 60_000 });
    expect(next.probe).toBe(false);
    await next.settle();
  });

  it('asksQuota waits out a quota wait within max-wait, and never a gate the server set', async () => {
    const clock = new FakeClock(T0);
    const store = new MemoryRateStateStore();
    await store.update('k', (s) => void (s.quota = quota(0, T0 + 30_000, 60, T0 - 10_000)));
    const short = new RateLimiter({ clock, key: 'k', store });
    const permit = await short.acquire({ maxWaitMs: 60_000, asksQuota: true });
    expect(clock.now()).toBeGreaterThanOrEqual(T0 + 30_000);
    await permit.settle();

    const gated = new MemoryRateStateStore();
    await gated.update('k', (s) => {
      s.quota = quota(0, clock.now() + 86_000_000, 1000, T0 - 600_000);
      s.gateUntil = clock.now() + 86_000_000;
    });
    const limiter = new RateLimiter({ clock, key: 'k', store: gated });
    const error = await Promise.resolve(limiter.acquire({ maxWaitMs: 60_000, asksQuota: true })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as Error).message).toMatch(/the server asked to wait/);
  });

  it('a wait within max-wait is announced, then slept', async () => {
    const clock = new FakeClock(T0);
    const store = new MemoryRateStateStore();
    await store.update('k', (s) => void (s.gateUntil = T0 + 7000));
    const limiter = new RateLimiter({ clock, key: 'k', store });
    const seen: unknown[] = [];
    let ended = false;
    const permit = await limiter.acquire({
      maxWaitMs: 7000,
      onWait: (info) => {
        seen.push(info);
        return () => (ended = true);
      },
    });
    expect(seen).toEqual([{ reason: 'gate', ms: 7000, until: T0 + 7000, quota: undefined }]);
    expect(ended).toBe(true);
    expect(clock.now()).toBe(T0 + 7000);
    await permit.settle();
  });

  it('Ctrl-C during a wait gives InterruptedError', async () => {
    const clock = new FakeClock(T0);
    const store = new MemoryRateStateStore();
    await store.update('k', (s) => void (s.gateUntil = T0 + 60_000));
    const limiter = new RateLimiter({ clock, key: 'k', store });
    const ac = new AbortController();
    const p = limiter.acquire({ signal: ac.signal, onWait: () => void setImmediate(() => ac.abort()) });
    await expect(p).rejects.toBeInstanceOf(InterruptedError);
    expect(clock.now()).toBeLessThan(T0 + 60_000);
  });

  it('a reservation whose owner never settles lapses after leaseMs', async () => {
    const clock = new FakeClock(T0);
    const limiter = new RateLimiter({ clock, key: 'k', leaseMs: 5000, pollMs: 100 });
    await limiter.acquire(); // the probe, never settled (a killed process)
    const second = await limiter.acquire();
    expect(second.probe).toBe(true);
    expect(clock.now()).toBeGreaterThanOrEqual(T0 + 5000);
  });

  it('settling wakes in-process waiters at once (no poll delay)', async () => {
    const clock = new FakeClock(T0);
    const limiter = new RateLimiter({ clock, key: 'k', pollMs: 10_000 });
    const probe = await limiter.acquire();
    const waiting = limiter.acquire();
    // The waiter is waiting for the probe's answer now (microtasks only: a turn of the event loop would
    // let the fake clock run out its 10 s pause, as if the probe had taken that long).
    for (let i = 0; i < 20; i++) await Promise.resolve();
    await probe.settle({ quota: quota(4, T0 + 60_000) });
    const next = await waiting;
    expect(next.probe).toBe(false);
    expect(clock.now()).toBe(T0);
  });

  it('two limiters over one store (two processes) share the gate', async () => {
    const clock = new FakeClock(T0);
    const store = new MemoryRateStateStore();
    const a = new RateLimiter({ clock, key: 'k', store });
    const b = new RateLimiter({ clock, key: 'k', store });
    const pa = await a.acquire();
    await pa.settle({ quota: quota(0, T0 + 3000), gateUntil: T0 + 3000 });
    const pb = await b.acquire();
    expect(clock.now()).toBeGreaterThanOrEqual(T0 + 3000);
    await pb.settle();
  });
});
