// The limiter with `batch` (what the CLI uses with the shared state file): slots reserved in blocks
// and handed out without the store while the quota is plentiful, answers published lazily, and
// the same guarantees as one request at a time when the quota is scarce. All on the fake clock.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call } from '../../../src/api/pets.js';
import { ApiClient } from '../../../src/http/api-client.js';
import { decide, emptyState, MemoryRateStateStore, slotCount, type KeyRateState, type RateStateStore } from '../../../src/ratelimit/key-state.js';
import { LOOK_MS, RateLimiter } from '../../../src/ratelimit/limiter.js';
import type { Permit } from '../../../src/ratelimit/permit.js';
import type { Quota } from '../../../src/ratelimit/quota.js';
import { FileRateStateStore, rateStatePath } from '../../../src/ratelimit/rate-state.js';
import { tempDir } from '../../helpers/cli.js';
import { FakeClock } from '../http/fake-clock.js';
import { modelServer } from '../http/transport-fakes.js';
import { systemClock } from '../../../src/time/clock.js';
import type { ApiResponse } from '../../../src/transport/exchange.js';
import type { Transport } from '../../../src/http/api-client.js';
import { quotaFromHeaders } from '../../../src/ratelimit/quota.js';

const T0 = Date.UTC(2030, 0, 1, 12, 0, 0);
const GET = { method: 'GET', path: '/pets' } as const;
const quota = (remaining: number, resetAt = T0 + 60_000, limit = 1000, seenAt = T0): Quota => ({ limit, remaining, resetAt, seenAt });
const tick = () => new Promise((r) => setImmediate(r));

/** A store that counts the operations that would lock, read and write the file. */
class CountingStore implements RateStateStore {
  updates = 0;
  gets = 0;
  /** The number of slots in the store after each operation. */
  readonly after: number[] = [];
  constructor(readonly inner: RateStateStore = new MemoryRateStateStore()) {}
  update<T>(key: string, change: (state: KeyRateState) => T, saved?: (stamp: unknown) => void): Promise<T> {
    this.updates++;
    return this.inner.update(
      key,
      (s) => {
        const value = change(s);
        this.after.push(slotCount(s.leases));
        return value;
      },
      saved,
    );
  }
  get(key: string): Promise<KeyRateState | undefined> {
    this.gets++;
    return this.inner.get(key);
  }
  stamp(): unknown {
    return this.inner.stamp?.();
  }
}

async function seeded(q: Quota, over: Partial<KeyRateState> = {}): Promise<CountingStore> {
  const store = new CountingStore();
  await store.update('k', (s) => Object.assign(s, { quota: q }, over));
  store.updates = 0;
  return store;
}

/** The slots in the store, one element per slot (a block's entry stands for several). */
const slots = async (store: RateStateStore) =>
  Object.keys((await store.get('k'))?.leases ?? {}).flatMap((id) => Array.from({ length: slotCount({ [id]: 0 }) }, () => id));

function limiter(clock: FakeClock, store: RateStateStore, over: Partial<ConstructorParameters<typeof RateLimiter>[0]> = {}) {
  return new RateLimiter({ clock, key: 'k', store, batch: true, leaseMs: 35_000, ...over });
}

describe('plentiful quota: blocks of slots, no store operation per request', () => {
  it('reserves a block for the requests waiting, grows it, and hands slots out without the store', async () => {
    const clock = new FakeClock(T0);
    const store = await seeded(quota(900_000, T0 + 60_000, 1_000_000));
    // Made-up answers whose Remaining jumps would read as others using the key (src/ratelimit/fleet.ts): fleet pacing off.
    const l = limiter(clock, store, { fleet: false });
    // Eight requests at once: one store operation reserves eight slots (a second one, once half
    // of them are out, fetches the next block).
    const first = await Promise.all(Array.from({ length: 8 }, () => l.acquire()));
    expect(store.updates).toBe(2);
    expect((await slots(store)).length).toBeGreaterThanOrEqual(8);
    // Answers are kept in memory: no store operation per settle.
    clock.advance(10);
    for (const [i, p] of first.entries()) await p.settle({ quota: quota(900_000 - 1 - i, T0 + 60_000, 1_000_000, clock.now()) });
    expect(store.updates).toBe(2);
    // 1,000 more requests, eight at a time: blocks double up to 64.
    let permits: Permit[] = [];
    for (let i = 0; i < 1000; i++) {
      permits.push(await l.acquire());
      if (permits.length === 8) {
        for (const p of permits) await p.settle({ quota: quota(899_000, T0 + 60_000, 1_000_000, clock.now()) });
        permits = [];
      }
    }
    expect(store.updates).toBeLessThan(1000 / 64 + 10);
    await l.close();
    expect(await slots(store)).toEqual([]);
  });

  it('hands out reserved slots and takes their answers without a promise, and goes to the store only when it must', async () => {
    const clock = new FakeClock(T0);
    const store = await seeded(quota(900_000, T0 + 60_000, 1_000_000));
    const l = limiter(clock, store, { fleet: false });
    const first = await l.acquire();
    expect(first.settle({ quota: quota(899_999, T0 + 60_000, 1_000_000, clock.now()) })).toBeUndefined();
    const more = await l.acquire();
    // Slots from the block, answers kept in memory.
    const updates = store.updates;
    const quick = [await l.acquire(), await l.acquire(), await l.acquire()];
    for (const [i, p] of quick.entries()) expect(p.settle({ quota: quota(899_990 - i, T0 + 60_000, 1_000_000, clock.now()) })).toBeUndefined();
    expect(store.updates).toBe(updates);
    // A look at the store (a stat); nothing changed there, so a slot at once, without a read.
    clock.advance(LOOK_MS);
    const gets = store.gets;
    (await l.acquire()).settle();
    expect(store.gets).toBe(gets);
    // Another process saved a gate (a 429 it got): the next look sees the store changed, and acquire()
    // reads it and waits out the gate.
    await store.update('k', (st) => {
      st.gateUntil = clock.now() + 2000;
    });
    clock.advance(LOOK_MS);
    let got = false;
    const gated = Promise.resolve(l.acquire()).then((p) => {
      got = true;
      return p;
    });
    await tick();
    expect(got).toBe(false);
    clock.advance(2500);
    (await gated).settle();
    // A 429's gate must reach the store before the caller goes on: a promise.
    const settling = more.settle({ quota: quota(0, T0 + 60_000, 1_000_000, clock.now()), gateUntil: clock.now() + 5000 });
    expect(settling).toBeInstanceOf(Promise);
    await settling;
    expect((await store.get('k'))?.gateUntil).toBe(clock.now() + 5000);
    await l.close();
  });

  it('alone, its requests overtaking each other on the way, it keeps batching while the quota is plentiful', async () => {
    const clock = new FakeClock(T0);
    const store = await seeded(quota(900_000, T0 + 60_000, 1_000_000));
    const l = limiter(clock, store);
    let remaining = 900_000;
    // 800 requests, four at a time; the server counts each pair in swapped order (2, 1, 4, 3), so
    // until the later one's answer comes, the earlier one's shows a gap, as another client's would.
    for (let i = 0; i < 200; i++) {
      const ps = await Promise.all(Array.from({ length: 4 }, () => l.acquire()));
      clock.advance(2);
      const seen = [remaining - 2, remaining - 1, remaining - 4, remaining - 3];
      remaining -= 4;
      for (const [k, p] of ps.entries()) await p.settle({ quota: quota(seen[k]!, T0 + 60_000, 1_000_000, clock.now()) });
    }
    expect(store.updates).toBeLessThan(60);
    await l.close();
  });

  it("never changes an answer's own quota object in place (the caller keeps it for the quota line)", async () => {
    const clock = new FakeClock(T0);
    const store = await seeded(quota(900_000, T0 + 60_000, 1_000_000));
    const l = limiter(clock, store, { fleet: false });
    const [a, b] = await Promise.all([l.acquire(), l.acquire()]);
    // An answer of another limit becomes the quota to publish as it is.
    const answer = quota(1_899_000, T0 + 60_000, 2_000_000, clock.now());
    expect(a.settle({ quota: answer })).toBeUndefined();
    const c = await l.acquire();
    c.settle({ quota: quota(1_800_000, T0 + 60_000, 2_000_000, clock.now()) });
    b.settle({ quota: quota(1_799_000, T0 + 60_000, 2_000_000, clock.now()) });
    expect(answer).toEqual(quota(1_899_000, T0 + 60_000, 2_000_000, T0));
    await l.close();
    expect((await store.get('k'))?.quota?.remaining).toBeLessThanOrEqual(1_799_000);
  });

  it('publishes answers at most every flushMs, together with the slots they used', async () => {
    const clock = new FakeClock(T0);
    const store = await seeded(quota(900_000, T0 + 60_000, 1_000_000));
    const l = limiter(clock, store, { batch: { flushMs: 100, maxBlock: 64 } });
    const p = await l.acquire();
    await p.settle({ quota: quota(899_990, T0 + 60_000, 1_000_000, T0) });
    // Not yet published: the slot still counts in the store, so nobody over-sends meanwhile.
    expect((await store.get('k'))?.quota?.remaining).toBe(900_000);
    expect(await slots(store)).toHaveLength(1);
    await clock.sleep(100);
    await tick();
    expect((await store.get('k'))?.quota?.remaining).toBe(899_990);
    expect(await slots(store)).toEqual([]);
    await l.close();
  });

  it("requests arriving while the limiter's own probe is in flight wait for its answer, not for the store", async () => {
    const clock = new FakeClock(T0);
    const store = new CountingStore();
    const l = limiter(clock, store, { fleet: false });
    const probe = await l.acquire();
    expect(probe.probe).toBe(true);
    const before = store.updates;
    const others = Array.from({ length: 3 }, () => l.acquire());
    for (let i = 0; i < 20; i++) await Promise.resolve();
    expect(store.updates).toBe(before);
    // Its answer: one store operation publishes the quota and reserves for the three.
    await probe.settle({ quota: quota(900_000, T0 + 60_000, 1_000_000, clock.now()) });
    const permits = await Promise.all(others);
    expect(permits.map((p) => p.probe)).toEqual([false, false, false]);
    expect(store.updates).toBe(before + 1);
    expect(clock.now()).toBe(T0);
    // The quota is plentiful and more than one request wanted a slot: that operation reserved a full
    // block, so the probe's own worker goes on at once too (no second operation before four are out).
    expect(await l.acquire()).toBeDefined();
    expect(store.updates).toBe(before + 1);
    await l.close();
  });

  it('answers kept in memory never change what the store holds before they are published; an answer of another limit is taken as it is, one near the low-water mark published at once', async () => {
    const clock = new FakeClock(T0);
    const store = await seeded(quota(900_000, T0 + 60_000, 1_000_000));
    const l = limiter(clock, store, { fleet: false, batch: { flushMs: 100, maxBlock: 64 } });
    // Two requests at once: a block. The second answer, flushMs later, is published (in the background).
    const [a, b] = await Promise.all([l.acquire(), l.acquire()]);
    a.settle({ quota: quota(899_999, T0 + 60_000, 1_000_000, clock.now()) });
    clock.advance(100);
    b.settle({ quota: quota(899_998, T0 + 60_000, 1_000_000, clock.now()) });
    for (let i = 0; i < 20; i++) await Promise.resolve();
    expect((await store.get('k'))?.quota?.remaining).toBe(899_998);
    // Slots without the store, answers kept in memory; the published quota stays as it was.
    const updates = store.updates;
    const kept = [await l.acquire(), await l.acquire(), await l.acquire()];
    for (const [i, p] of kept.entries()) expect(p.settle({ quota: quota(899_000 - i, T0 + 60_000, 1_000_000, clock.now()) })).toBeUndefined();
    expect(store.updates).toBe(updates);
    expect((await store.get('k'))?.quota?.remaining).toBe(899_998);
    expect((await l.state())?.quota?.remaining).toBe(898_998);
    // Another limit (a plan changed mid-window): taken in as it is.
    const changed = await l.acquire();
    expect(changed.settle({ quota: quota(1_899_000, T0 + 60_000, 2_000_000, clock.now()) })).toBeUndefined();
    expect((await l.state())?.quota?.limit).toBe(2_000_000);
    // Down to the low-water mark (a tenth of the limit): published before the caller goes on.
    const low = await l.acquire();
    const settling = low.settle({ quota: quota(150_000, T0 + 60_000, 2_000_000, clock.now()) });
    expect(settling).toBeInstanceOf(Promise);
    await settling;
    expect((await store.get('k'))?.quota?.remaining).toBe(150_000);
    await l.close();
  });

  it('while the quota is plentiful the second block is a full one, so a bulk run goes to the store about once per block; while it is not, each is twice the last', async () => {
    /** Store operations for 20,000 requests, 8 at a time, against `remaining` of `limit`, and the most slots reserved at once. */
    const run = async (remaining: number, limit: number) => {
      const clock = new FakeClock(T0);
      const store = await seeded(quota(remaining, T0 + 60_000, limit));
      const l = limiter(clock, store, { fleet: false, batch: { maxBlock: 4096, flushMs: 500 } });
      for (let i = 0; i < 20_000 / 8; i++) {
        const permits = await Promise.all(Array.from({ length: 8 }, () => l.acquire()));
        for (const p of permits) await p.settle({ quota: quota(remaining - 8 * i, T0 + 60_000, limit, clock.now()) });
      }
      const updates = store.updates;
      await l.close();
      return { updates, largest: Math.max(...store.after) };
    };
    // 8, 4096, then another whenever half of one is used: about 20,000 / 4096 + 2.
    const plentiful = await run(999_000_000, 1_000_000_000);
    expect(plentiful.largest).toBeGreaterThanOrEqual(4096);
    expect(plentiful.updates).toBeLessThanOrEqual(7);
    // 900,000 left could run out before the reset at 8 requests a millisecond: 8, 16, 32, ... 4096.
    const notPlentiful = await run(900_000, 1_000_000);
    expect(notPlentiful.largest).toBeGreaterThanOrEqual(4096);
    expect(notPlentiful.updates).toBeGreaterThanOrEqual(plentiful.updates + 5);
  });

  it('a block is a share of what nobody has reserved: floor(unreserved / (2 × other holders + 1)), at most maxBlock', async () => {
    const clock = new FakeClock(T0);
    const store = await seeded(quota(500, T0 + 60_000, 1000));
    // Another process holds 20 slots.
    await store.update('k', (s) => {
      for (let i = 0; i < 20; i++) s.leases[`999.other#${i}`] = T0 + 30_000;
    });
    store.after.length = 0;
    const l = limiter(clock, store);
    const first = await Promise.all(Array.from({ length: 200 }, () => l.acquire()));
    // 480 unreserved, one other holder: a block of floor(480 / 3) = 160 capped at 64 for the 200 waiting.
    expect(store.after[0]).toBe(20 + 64);
    // Then 416 unreserved: min(64, floor(416 / 3) = 138) again, and so on; never more than remaining in all.
    expect(Math.max(...store.after)).toBeLessThanOrEqual(500);
    expect(first).toHaveLength(200);
    await l.close();
    // The 200 in flight are still counted after close (they were never settled).
    expect(await slots(store)).toHaveLength(220);
  });

  it('with less left, the share rule keeps room for the others', async () => {
    const clock = new FakeClock(T0);
    const store = await seeded(quota(150, T0 + 60_000, 1000));
    await store.update('k', (s) => {
      s.leases['998.a#0'] = T0 + 30_000;
      s.leases['999.b#0'] = T0 + 30_000;
    });
    store.after.length = 0;
    const l = limiter(clock, store);
    await Promise.all(Array.from({ length: 40 }, () => l.acquire()));
    // 148 unreserved, two other holders: floor(148 / 5) = 29 of the 40 waiting.
    expect(store.after[0]).toBe(2 + 29);
    await l.close();
  });

  it('close() hands back unused slots and publishes the latest quota', async () => {
    const clock = new FakeClock(T0);
    const store = await seeded(quota(900_000, T0 + 60_000, 1_000_000));
    const l = limiter(clock, store);
    const ps = await Promise.all(Array.from({ length: 8 }, () => l.acquire()));
    for (const p of ps) await p.settle({ quota: quota(899_000, T0 + 60_000, 1_000_000, T0) });
    const more = await l.acquire(); // from a bigger block
    expect((await slots(store)).length).toBeGreaterThan(1);
    await more.settle({ quota: quota(898_999, T0 + 60_000, 1_000_000, T0) });
    await l.close();
    const s = await store.get('k');
    expect(s?.leases).toEqual({});
    expect(s?.quota?.remaining).toBe(898_999);
  });

  it('an idle process hands its unused slots back after holdMs', async () => {
    const clock = new FakeClock(T0);
    const store = await seeded(quota(900_000, T0 + 60_000, 1_000_000));
    const l = limiter(clock, store, { batch: { holdMs: 2000 } });
    const ps = await Promise.all(Array.from({ length: 4 }, () => l.acquire()));
    for (const p of ps) await p.settle({ quota: quota(899_000, T0 + 60_000, 1_000_000, T0) });
    await (await l.acquire()).settle({ quota: quota(898_999, T0 + 60_000, 1_000_000, T0) }); // a new block of 8
    expect((await slots(store)).length).toBeGreaterThan(0);
    await clock.sleep(2000);
    for (let i = 0; i < 5; i++) await tick();
    expect(await slots(store)).toEqual([]);
    expect((await store.get('k'))?.quota?.remaining).toBe(898_999);
  });

  it("a crashed process's block lapses after holdMs + leaseMs", async () => {
    const clock = new FakeClock(T0);
    const store = await seeded(quota(100, T0 + 600_000, 100));
    const dead = limiter(clock, store, { batch: { holdMs: 2000 }, leaseMs: 5000 });
    await Promise.all(Array.from({ length: 20 }, () => dead.acquire())); // never settled, never closed
    const held = (await slots(store)).length;
    expect(held).toBeGreaterThan(0);
    // What the others see: the slots count until they lapse.
    const s = (await store.get('k'))!;
    expect(Math.max(...Object.values(s.leases))).toBeLessThanOrEqual(T0 + 2000 + 5000);
    const other = limiter(new FakeClock(T0 + 7000), store);
    await (await other.acquire()).settle({ quota: quota(80, T0 + 600_000, 100, T0 + 7000) });
    await other.close();
    expect((await slots(store)).filter((id) => !id.startsWith(`${process.pid}.`)).length).toBe(0);
    expect(await slots(store)).toEqual([]);
  });
});

describe('what voids reserved slots', () => {
  it('a window reset: unused slots of the old window are not used in the new one; a probe goes first', async () => {
    const clock = new FakeClock(T0);
    const resetAt = T0 + 1000;
    const store = await seeded(quota(900, resetAt, 1000));
    const l = limiter(clock, store);
    const ps = await Promise.all(Array.from({ length: 8 }, () => l.acquire()));
    for (const p of ps) await p.settle({ quota: quota(892, resetAt, 1000, T0) });
    await (await l.acquire()).settle({ quota: quota(891, resetAt, 1000, T0) }); // reserves the next block, in the old window
    expect((await slots(store)).some((id) => id.includes('~'))).toBe(true);
    clock.advance(1250); // reset + margin
    const before = store.updates;
    const probe = await l.acquire();
    expect(store.updates).toBe(before + 1); // went to the store instead of using the old block
    expect(probe.probe).toBe(true);
    expect(await slots(store)).toHaveLength(1); // the old block is gone; only the probe counts
    await probe.settle({ quota: quota(999, resetAt + 60_000, 1000, clock.now()) });
    await l.close();
  });

  it('looks at the store at most every LOOK_MS: a gate saved meanwhile is seen at the next look, and at once after the clock was set back', async () => {
    const clock = new FakeClock(T0);
    const store = await seeded(quota(900_000, T0 + 60_000, 1_000_000));
    const l = limiter(clock, store, { fleet: false });
    const answer = () => ({ quota: quota(899_000, T0 + 60_000, 1_000_000, clock.now()) });
    for (let i = 0; i < 3; i++) (await l.acquire()).settle(answer());
    const gate = () => store.update('k', (st) => void (st.gateUntil = clock.now() + 2000));
    await gate();
    clock.advance(LOOK_MS - 1);
    const gets = store.gets;
    (l.acquire() as Permit).settle(answer()); // no look yet: a slot of the block, at once
    expect(store.gets).toBe(gets);
    clock.advance(1);
    const gated = l.acquire();
    expect(gated).toBeInstanceOf(Promise); // the look sees the file changed, reads it, and waits out the gate
    expect(store.gets).toBe(gets + 1);
    (await gated).settle(answer());
    (await l.acquire()).settle(answer());
    await gate();
    clock.advance(-5);
    expect(l.acquire()).toBeInstanceOf(Promise);
    expect(store.gets).toBe(gets + 2);
    await l.close();
  });

  it('a gate another process saved is noticed without a store operation, and honoured', async () => {
    const clock = new FakeClock(T0);
    const store = await seeded(quota(900_000, T0 + 60_000, 1_000_000));
    const a = limiter(clock, store);
    const b = limiter(clock, store);
    const ps = await Promise.all(Array.from({ length: 8 }, () => a.acquire()));
    for (const p of ps) await p.settle({ quota: quota(899_000, T0 + 60_000, 1_000_000, T0) });
    await (await a.acquire()).settle(); // a now holds unused slots of a block
    // b gets a 429 (someone outside the shared state used the quota up).
    const pb = await b.acquire();
    await pb.settle({ quota: quota(0, T0 + 60_000, 1_000_000, T0), gateUntil: T0 + 5000 });
    expect((await store.get('k'))?.gateUntil).toBe(T0 + 5000); // published at once
    clock.advance(LOOK_MS);
    const waits: number[] = [];
    const next = await a.acquire({ onWait: (w) => void waits.push(w.until) });
    expect(waits[0]).toBe(T0 + 5000);
    expect(clock.now()).toBeGreaterThanOrEqual(T0 + 5000);
    await next.settle();
    await a.close();
    await b.close();
  });

  it('a 429 of its own closes the gate, voids the block and is published at once', async () => {
    const clock = new FakeClock(T0);
    const store = await seeded(quota(900_000, T0 + 60_000, 1_000_000));
    const l = limiter(clock, store);
    const ps = await Promise.all(Array.from({ length: 8 }, () => l.acquire()));
    await ps[0]!.settle({ quota: quota(0, T0 + 60_000, 1_000_000, T0), gateUntil: T0 + 3000 });
    const s = (await store.get('k'))!;
    expect(s.gateUntil).toBe(T0 + 3000);
    expect(s.quota?.remaining).toBe(0);
    // Only the seven still in flight stay counted; no unused slot survives the 429.
    expect(slotCount(s.leases)).toBe(7);
    for (const p of ps.slice(1)) await p.settle();
    await l.close();
  });
});

describe('scarce quota: one request at a time, as without batching', () => {
  it('under the low-water mark, slots only for the requests waiting and answers published at once', async () => {
    const clock = new FakeClock(T0);
    const store = await seeded(quota(12, T0 + 60_000, 100)); // under 2 × 8 in flight
    // Made-up answers whose Remaining jumps would read as others using the key (src/ratelimit/fleet.ts): fleet pacing off.
    const l = limiter(clock, store, { fleet: false });
    const ps = await Promise.all(Array.from({ length: 8 }, () => l.acquire()));
    expect(await slots(store)).toHaveLength(8);
    expect((await slots(store)).every((id) => id.includes('#'))).toBe(true); // in flight, none spare
    await ps[0]!.settle({ quota: quota(11, T0 + 60_000, 100, T0) });
    expect((await store.get('k'))?.quota?.remaining).toBe(11);
    expect(await slots(store)).toHaveLength(7);
    // 11 remaining, 7 in flight: 4 more may go, the 5th waits for the reset.
    const more = await Promise.all(Array.from({ length: 4 }, () => l.acquire()));
    expect(more).toHaveLength(4);
    const waited: string[] = [];
    const fifth = await Promise.resolve(l.acquire({ maxWaitMs: 1000, onWait: (w) => void waited.push(w.reason) })).catch((e: Error) => e.message);
    expect(fifth).toMatch(/minute limit reached \(0\/100 left\).*longer than --max-wait 1s/);
  });

  it('others wait for the reset when remaining is used up, but poll while some of it is only reserved', () => {
    const base = (leases: Record<string, number>): KeyRateState => ({ ...emptyState(), quota: quota(3), leases });
    const later = T0 + 30_000;
    expect(decide(base({ 'a#0': later, 'a#1': later, 'a#2': later }), T0, 250, 'me')).toEqual({ kind: 'wait', reason: 'quota', until: T0 + 60_250 });
    expect(decide(base({ 'a#0': later, 'a~1': later, 'a~2': later }), T0, 250, 'me')).toEqual({ kind: 'poll' });
    // Its own spare slots are no reason to poll.
    expect(decide(base({ 'me#0': later, 'me~1': later, 'me~2': later }), T0, 250, 'me').kind).toBe('wait');
  });

  it('answers out of order: the last slot of a window is used once its own request in flight settles, not after the reset', async () => {
    // The server has 3 left; A and B leave; it answers A with 2 and B with 1, but B's answer is in
    // first. Then remaining (1) − in flight (A) = 0, although A is already counted in that 1: one
    // slot is free. Waiting for the reset (the old behaviour) left it unused and cost a whole window.
    const clock = new FakeClock(T0);
    const resetAt = T0 + 60_000;
    const store = await seeded(quota(3, resetAt, 100));
    const l = limiter(clock, store);
    const [a, b] = await Promise.all([l.acquire(), l.acquire()]);
    await b!.settle({ quota: quota(1, resetAt, 100, clock.now()) });
    const waits: string[] = [];
    const c = l.acquire({ onWait: (w) => void waits.push(w.reason) });
    // A's answer (remaining 2) comes in 10 ms later.
    await clock.sleep(10);
    await a!.settle({ quota: quota(2, resetAt, 100, clock.now()) });
    const pc = await c;
    expect(clock.now()).toBeLessThan(T0 + 1000);
    expect(waits).toEqual([]);
    expect(pc.probe).toBe(false);
    // Never more than the server said: C's answer says nothing is left, so D waits for the reset
    // (announced once, when none of its own is in flight any more) and goes as a probe.
    const d = l.acquire({ onWait: (w) => void waits.push(w.reason) });
    await clock.sleep(5);
    await pc.settle({ quota: quota(0, resetAt, 100, clock.now()) });
    const pd = await d;
    expect(clock.now()).toBeGreaterThanOrEqual(resetAt + 250);
    expect(waits).toEqual(['quota']);
    expect(pd.probe).toBe(true);
    await pd.settle({ quota: quota(99, resetAt + 60_000, 100, clock.now()) });
    await l.close();
  });
});

describe('zero bans with many clients (the sandbox limiter on the fake clock)', () => {
  async function run(opts: { perWindow: number; windowMs: number; clients: number; perClient: number; concurrency: number; maxLatency?: number }) {
    const clock = new FakeClock(T0 + 321);
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const server = modelServer(clock, {
      perWindow: opts.perWindow,
      windowMs: opts.windowMs,
      latency: () => 1 + Math.floor(random() * (opts.maxLatency ?? 60)),
    });
    const store = new CountingStore();
    const clients = Array.from(
      { length: opts.clients },
      () => new ApiClient(server.transport, { envName: 't' }, { clock, limiter: new RateLimiter({ clock, key: 'k', store, batch: true, pollMs: 20 }) }),
    );
    await Promise.all(
      clients.map(async (c) => {
        let next = 0;
        const worker = async () => {
          while (next < opts.perClient) {
            next++;
            expect((await call(c, GET)).status).toBe(200);
          }
        };
        await Promise.all(Array.from({ length: opts.concurrency }, worker));
        await c.close();
      }),
    );
    return { server, store, clock };
  }

  it('scarce: 4 processes × 100 requests, concurrency 8, 50 per 3 s window', async () => {
    const { server, clock } = await run({ perWindow: 50, windowMs: 3000, clients: 4, perClient: 100, concurrency: 8 });
    expect(server.count(200)).toBe(400);
    expect(server.count(429)).toBe(0);
    expect(server.count(403)).toBe(0);
    expect(clock.now() - T0).toBeGreaterThanOrEqual(7 * 3000);
  });

  it('plentiful: 4 processes × 2,000 requests, concurrency 8: zero 429s, and far fewer store operations than requests', async () => {
    const { server, store } = await run({ perWindow: 100_000, windowMs: 60_000, clients: 4, perClient: 2000, concurrency: 8, maxLatency: 3 });
    expect(server.count(200)).toBe(8000);
    expect(server.count(429)).toBe(0);
    expect(server.count(403)).toBe(0);
    // Blocks of up to 64, plus a publication every 100 ms per process.
    expect(store.updates).toBeLessThan(8000 / 16);
    // Every client closed: nothing reserved is left behind.
    expect((await store.get('k'))?.leases).toEqual({});
  });

  it('plentiful, one process alone at concurrency 8 on the real clock (many requests leave within one millisecond, answers in any order): it sees no one else and keeps batching', async () => {
    // A server counting in arrival order and answering after a random few turns of the event loop.
    let remaining = 1_000_000;
    let served = 0;
    // One window for the whole run, as a server's: it resets a minute from now.
    const reset = String(Math.ceil(Date.now() / 1000) + 60);
    const transport = {
      baseUrl: 'http://model/v1',
      async once() {
        const left = --remaining;
        for (let i = Math.floor(Math.random() * 4); i > 0; i--) await new Promise((r) => setImmediate(r));
        served++;
        const headers = {
          'x-ratelimit-limit': '1000000',
          'x-ratelimit-remaining': String(left),
          'x-ratelimit-reset': reset,
        };
        const res: ApiResponse = {
          status: 200,
          headers,
          text: '[]',
          json: [],
          isJson: true,
          quota: quotaFromHeaders(headers, Date.now()),
        };
        return res;
      },
      close: async () => {},
    };
    const store = new CountingStore();
    const limiter = new RateLimiter({ clock: systemClock, key: 'k', store, batch: true });
    const client = new ApiClient(transport as Transport, { envName: 't' }, { clock: systemClock, limiter });
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < 3000) {
          next++;
          await call(client, GET);
        }
      }),
    );
    await client.close();
    expect(served).toBe(3000);
    expect(limiter.fleet?.active).toBe(false);
    // One store operation per request (and one request at a time) was what a phantom fleet cost.
    expect(store.updates).toBeLessThan(3000 / 16);
  });

  it('ApiClient.close() publishes the last quota and gives back the unused slots', async () => {
    const clock = new FakeClock(T0 + 100);
    const server = modelServer(clock, { perWindow: 100_000, windowMs: 60_000, latency: () => 1 });
    const store = new CountingStore();
    const client = new ApiClient(server.transport, { envName: 't' }, { clock, limiter: new RateLimiter({ clock, key: 'k', store, batch: true }) });
    await Promise.all(Array.from({ length: 20 }, () => call(client, GET)));
    expect(Object.keys((await store.get('k'))?.leases ?? {}).length).toBeGreaterThan(0);
    await client.close();
    const s = await store.get('k');
    expect(s?.leases).toEqual({});
    expect(s?.quota?.remaining).toBe(100_000 - 20);
  });

  it('a binding limit in the middle of plentiful use: 2 processes × 600 requests at 500 per 2 s window', async () => {
    const { server } = await run({ perWindow: 500, windowMs: 2000, clients: 2, perClient: 600, concurrency: 16 });
    expect(server.count(200)).toBe(1200);
    expect(server.count(429)).toBe(0);
    expect(server.count(403)).toBe(0);
  });
});

describe('through the state file (two stores, one file: two processes)', () => {
  let tmp: { dir: string; cleanup: () => void };
  beforeEach(() => {
    tmp = tempDir('petstore-limiter-batch-');
  });
  afterEach(() => tmp.cleanup());

  it('a block is one entry in the file that stands for its slots, so another process counts them all', async () => {
    const clock = new FakeClock(T0);
    const path = rateStatePath(tmp.dir);
    const fa = new FileRateStateStore(path, { clock });
    await fa.update('k', (s) => void (s.quota = quota(1000, T0 + 60_000, 1000)));
    const a = limiter(clock, fa);
    const ps = await Promise.all(Array.from({ length: 8 }, () => a.acquire()));
    for (const p of ps) await p.settle({ quota: quota(990, T0 + 60_000, 1000, T0) });
    const last = await a.acquire();
    const leases = (await new FileRateStateStore(path, { clock }).get('k'))!.leases;
    expect(slotCount(leases)).toBeGreaterThan(1);
    expect(Object.keys(leases).some((id) => /~[0-9a-z]+\*\d+$/.test(id))).toBe(true);
    expect(Object.keys(leases).length).toBeLessThan(slotCount(leases));
    expect(Object.values(leases).every((v) => typeof v === 'number')).toBe(true);
    // b sees a's reservations as in flight: it may reserve only from what is left.
    const fb = new FileRateStateStore(path, { clock });
    const b = limiter(clock, fb);
    await (await b.acquire()).settle({ quota: quota(980, T0 + 60_000, 1000, T0) });
    await last.settle({ quota: quota(981, T0 + 60_000, 1000, T0) });
    await a.close();
    await b.close();
    const s = (await fa.get('k'))!;
    expect(s.leases).toEqual({});
    expect(s.quota?.remaining).toBe(980);
  });

  it('a limiter never reads back the state it has just written itself', async () => {
    const clock = new FakeClock(T0);
    const fa = new CountingStore(new FileRateStateStore(rateStatePath(tmp.dir), { clock }));
    await fa.update('k', (s) => void (s.quota = quota(900_000, T0 + 60_000, 1_000_000)));
    const a = limiter(clock, fa);
    for (let i = 0; i < 50; i++) {
      const ps = await Promise.all(Array.from({ length: 8 }, () => a.acquire()));
      clock.advance(20);
      for (const p of ps) await p.settle({ quota: quota(899_000 - i, T0 + 60_000, 1_000_000, clock.now()) });
    }
    await a.close();
    expect(fa.updates).toBeGreaterThan(5);
    expect(fa.gets).toBe(0);
  });

  it('a process holding unused slots notices a gate another one wrote to the file (a stat, no lock)', async () => {
    const clock = new FakeClock(T0);
    const path = rateStatePath(tmp.dir);
    const fa = new CountingStore(new FileRateStateStore(path, { clock }));
    await fa.update('k', (s) => void (s.quota = quota(900_000, T0 + 60_000, 1_000_000)));
    const a = limiter(clock, fa);
    const b = limiter(clock, new FileRateStateStore(path, { clock }));
    const ps = await Promise.all(Array.from({ length: 8 }, () => a.acquire()));
    for (const p of ps) await p.settle({ quota: quota(899_000, T0 + 60_000, 1_000_000, T0) });
    await (await a.acquire()).settle();
    clock.advance(LOOK_MS);
    await (await a.acquire()).settle(); // from the block
    const before = fa.updates;
    await (await b.acquire()).settle({ quota: quota(0, T0 + 60_000, 1_000_000, clock.now()), gateUntil: T0 + 4000 });
    clock.advance(LOOK_MS);
    const waits: string[] = [];
    const next = await a.acquire({ onWait: (w) => void waits.push(`${w.reason} ${w.until - T0} after ${fa.updates - before} store operations`) });
    // The gate stopped it before any store operation of its own; then the quota b saw (0 left) keeps it until the reset.
    expect(waits[0]).toBe('gate 4000 after 0 store operations');
    expect(waits[1]).toMatch(/^quota 60250 /);
    await next.settle();
    await a.close();
    await b.close();
  });
});
