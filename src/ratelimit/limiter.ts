// The per-key gate every request passes (the rules: key-state.ts). A slot stays reserved in the store until
// its answer's quota is published, so processes sharing the store never send more than the server accepts.
// With `batch`, while the quota is plentiful, slots are reserved in blocks and answers published every flushMs.

import { InterruptedError } from '../errors/errors.js';
import { thisHost } from '../fs/local-process.js';
import { announcedSleep, type Clock } from '../time/clock.js';
import { FleetEstimator, type LimitWindow, quotaWindow } from './fleet.js';
import { waitTooLong } from './give-up.js';
import * as ks from './key-state.js';
import type { Decision, KeyRateState, RateStateStore } from './key-state.js';
import type { AcquireOptions, Asked, LimiterOptions, Out, Permit, SettleInfo } from './permit.js';
import type { Quota } from './quota.js';
import { ServerClock } from './server-clock.js';
import { Alarm, abortable, Serial, Waker } from './waker.js';

let holderCounter = 0;
/** How often a process looks for another's change to the store (a gate after its 429): a stat at most this often. */
export const LOOK_MS = 10;

export class RateLimiter {
  readonly key: string;
  readonly #clock: Clock;
  readonly #store: RateStateStore;
  readonly #fixedMarginMs: number | undefined;
  readonly #serverClock = new ServerClock();
  readonly #o: { pollMs: number; leaseMs: number; maxBlock: number; flushMs: number; holdMs: number; debug: (line: string) => void };
  readonly #batch: boolean;
  /** Learns the pace of the key's users on other machines (fleet.ts); undefined when switched off. */
  readonly fleet: FleetEstimator | undefined;
  readonly #othersCounted: (() => boolean) | undefined;
  /** This limiter's name in lease ids. */
  readonly #holder = `${process.pid}@${thisHost}/${(++holderCounter).toString(36)}${Math.random().toString(36).slice(2, 8)}`;
  readonly #gone: (holder: string) => boolean;
  readonly #waker = new Waker();
  /** The next housekeeping operation: publish after flushMs, give back lapsed or void slots. */
  readonly #alarm: Alarm;
  readonly #unpublished = new ks.Unpublished();
  /** Its own answers plus what it last read from the store. */
  #quota: Quota | undefined;
  #gateUntil = 0;
  readonly #out = new Map<number, Out>();
  /** Slots reserved and not handed out yet, and one for a probe (whose answer, not the store, says what comes next). */
  #free = 0;
  #probeFree = false;
  #probe: Out | undefined;
  /** The window the free slots were reserved in; not used after #usableUntil. */
  #blockWindow = 0;
  #usableUntil = 0;
  #lastBlock = 0;
  /** One request at a time (scarce or unknown quota): grants only for waiters, answers published at once. */
  #eager = true;
  #written = 0;
  #dirty = false;
  #lastSync = Number.NEGATIVE_INFINITY;
  #demand = 0;
  #issued = 0;
  #prefetch = false;
  #peak = 1;
  #asked: Asked = {};
  /** When the store last showed another holder's slots (a process on this machine). */
  #localPeersAt = Number.NEGATIVE_INFINITY;
  readonly #ops = new Serial(() => this.#runSync());
  /** The store's stamp as of the last read or write, and a read under way. */
  #seen: unknown;
  #looking: Promise<void> | undefined;
  /** When the store was last looked at: one stat in LOOK_MS, however many requests leave in it. */
  #lookedAt = Number.NaN;
  #closed = false;

  constructor(opts: LimiterOptions) {
    this.key = opts.key;
    this.#clock = opts.clock;
    this.#store = opts.store ?? new ks.MemoryRateStateStore();
    this.#fixedMarginMs = opts.marginMs;
    const batch = opts.batch === true ? {} : opts.batch || undefined;
    this.#batch = batch !== undefined;
    this.#o = {
      pollMs: opts.pollMs ?? 50,
      leaseMs: opts.leaseMs ?? 60_000,
      maxBlock: Math.max(1, Math.floor(batch?.maxBlock ?? 64)),
      flushMs: Math.max(0, batch?.flushMs ?? 100),
      holdMs: Math.max(1, batch?.holdMs ?? 2000),
      debug: opts.debug ?? (() => {}),
    };
    this.#gone = ks.deadHolder(opts.processAlive);
    this.fleet = opts.fleet === false ? undefined : new FleetEstimator();
    this.#othersCounted = opts.othersCounted;
    this.#alarm = new Alarm(this.#clock, () => {
      if (!this.#closed) this.#background();
    });
  }

  windowOf(q: Quota | undefined): LimitWindow | undefined {
    return q && (this.fleet?.window(q) ?? quotaWindow(q));
  }

  get marginMs(): number {
    return this.#fixedMarginMs ?? this.#serverClock.marginMs;
  }

  observeServerDate(date: string | undefined, sentAt: number, receivedAt: number): void {
    this.#serverClock.observe(date, sentAt, receivedAt);
  }

  /** The stored state, with what this process knows and has not published yet. */
  async state(): Promise<KeyRateState | undefined> {
    const s = await this.#store.get(this.key);
    if (!s && !this.#quota && this.#gateUntil === 0) return undefined;
    const out = s ?? ks.emptyState();
    if (this.#quota) out.quota = ks.mergeQuota(out.quota, this.#quota);
    out.gateUntil = Math.max(out.gateUntil, this.#gateUntil);
    return out;
  }

  /** A slot reserved earlier, once any change to the store since the last look is read (a promise only while it is). */
  #reserved(): Out | Promise<Out | undefined> | undefined {
    if (!(this.#free > 0 || this.#probeFree)) return undefined;
    const looking = this.#look();
    return looking ? looking.then(() => this.#take()) : this.#take();
  }

  /** A permit: at once, without a promise, when a reserved slot is free (most requests of a bulk run); else after the waits it takes. */
  acquire(opts: AcquireOptions = {}): Permit | Promise<Permit> {
    const reserved = opts.signal?.aborted ? undefined : this.#reserved();
    if (reserved instanceof Promise) return reserved.then((permit) => permit ?? this.#acquire(opts));
    return reserved ?? this.#acquire(opts);
  }

  async #acquire(opts: AcquireOptions): Promise<Permit> {
    for (;;) {
      if (opts.signal?.aborted) throw new InterruptedError();
      const reserved = await this.#reserved();
      if (reserved) return reserved;
      if (this.#gateUntil > this.#clock.now()) {
        const q = this.#quota;
        await this.#waitOut({ reason: 'gate', until: this.#gateUntil }, { quota: q && { ...q, remaining: Math.max(0, q.remaining - this.#out.size) } }, opts);
        continue;
      }
      const wakes = this.#waker.count;
      const asked = await this.#ask(opts.signal);
      if (asked !== undefined && 'settle' in asked) return asked;
      const d = asked?.decision;
      if (!asked || d?.kind !== 'wait') continue;
      if (this.#asksAlone(d, opts)) return this.#issue(this.#clock.now(), true);
      // Used up with requests of ours in flight: decide again when one settles.
      const silent = d.reason === 'quota' && this.#out.size > 0;
      await this.#waitOut(d, asked, opts, silent ? wakes : undefined);
    }
  }

  /** A request that asks the server the quota goes alone, like a probe, past a quota wait beyond maxWaitMs. */
  #asksAlone(d: { reason: 'gate' | 'quota'; until: number }, opts: AcquireOptions): boolean {
    const now = this.#clock.now();
    return opts.asksQuota === true && d.reason === 'quota' && this.#out.size === 0 && d.until - now > (opts.maxWaitMs ?? Infinity) && this.#gateUntil <= now;
  }

  /** Publishes what this process learnt and gives back its unused slots; still usable, one request at a time. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#alarm.cancel();
    this.#free = 0;
    this.#probeFree = false;
    if (this.#written > 0 || this.#dirty || this.#ops.running) await this.#ops.run();
  }

  /** Asks the store for slots (or waits for this limiter's probe): a permit, or what the store decided. */
  async #ask(signal: AbortSignal | undefined): Promise<Out | Asked | undefined> {
    this.#demand++;
    try {
      if (this.#ops.running) {
        const running = this.#ops.running.catch(() => {});
        await abortable(running, signal);
        const permit = this.#take();
        if (permit) return permit;
      }
      const probe = this.#probe;
      if (probe && this.#clock.now() - probe.issuedAt < this.#o.leaseMs) {
        await this.#waker.pause(this.#clock, this.#o.pollMs, signal);
        return undefined;
      }
      await abortable(this.#ops.run(), signal);
      const permit = this.#take();
      if (permit) return permit;
      const asked = this.#asked;
      if (asked.decision?.kind === 'poll') await this.#waker.pause(this.#clock, this.#o.pollMs, signal);
      return asked;
    } finally {
      this.#demand--;
    }
  }

  /** Sleeps until `d.until`; with `wakes`, silently and only until the next wake-up (at once if one came since). */
  async #waitOut(d: { reason: 'gate' | 'quota'; until: number }, asked: Asked, opts: AcquireOptions, wakes?: number): Promise<void> {
    await Promise.resolve(); // onWait may start another request: never from inside acquire() itself
    const now = this.#clock.now();
    const ms = Math.max(0, d.until - now);
    const { quota } = asked;
    const window = this.windowOf(quota ?? this.#quota);
    // A day's figures from before this process sent anything are an earlier command's.
    const earlier = this.#issued === 0 && window === 'day';
    if (ms > (opts.maxWaitMs ?? Infinity)) throw waitTooLong(d.reason, d.until, opts.maxWaitMs ?? Infinity, quota, window, earlier, now);
    if (wakes !== undefined) {
      if (this.#waker.count === wakes) await this.#waker.pause(this.#clock, ms, opts.signal);
      return;
    }
    const { onWait } = opts;
    const why = d.reason === 'quota' ? { kept: asked.kept, usedByOthers: asked.usedByOthers } : {};
    await announcedSleep(this.#clock, ms, opts.signal, onWait && (() => onWait({ reason: d.reason, ms, until: d.until, quota, window, ...why })));
  }

  /** Reads the store when its stamp changed: a gate or a newer quota another process saved. */
  #look(): Promise<void> | undefined {
    const now = this.#clock.now();
    // A clock set back looks at once.
    if (now >= this.#lookedAt && now - this.#lookedAt < LOOK_MS) return this.#looking;
    this.#lookedAt = now;
    const stamp = this.#store.stamp?.();
    if (stamp === undefined || stamp === this.#seen) return this.#looking;
    this.#seen = stamp;
    const looking = this.#read().finally(() => {
      if (this.#looking === looking) this.#looking = undefined;
    });
    this.#looking = looking;
    return looking;
  }

  async #read(): Promise<void> {
    const s = await this.#store.get(this.key).catch(() => undefined);
    if (!s || !this.#learn(s, this.#clock.now())) return;
    this.#dirty = true;
    this.#schedule();
  }

  /** True when what the store says voids the free slots (a gate someone saved). */
  #learn(s: KeyRateState, now: number): boolean {
    if (s.quota) this.#quota = ks.mergeQuota(this.#quota, s.quota);
    if (s.gateUntil <= this.#gateUntil) return false;
    this.#gateUntil = s.gateUntil;
    if (s.gateUntil <= now || this.#free === 0) return false;
    this.#free = 0;
    return true;
  }

  /** Below this many remaining (less those kept for others), one request at a time. */
  #lowWater(limit: number): number {
    return Math.max(2 * Math.max(this.#peak, this.#demand, 1), Math.ceil(limit / (this.fleet?.active ? 2 : 10)));
  }

  /** So much is left that this process at its most and the others at their pace could not use half before the reset. */
  #plentiful(q: Quota, reserve: number, now: number): boolean {
    const rtt = Math.max(this.fleet?.rttMs ?? 0, 1);
    const perMs = Math.max(this.#peak, this.#demand, 1) / rtt + (this.fleet?.othersPerMs ?? 0);
    return q.remaining - reserve > 2 * perMs * Math.max(0, q.resetAt + this.marginMs - now);
  }

  /** What to keep for users of the key on other machines (fleet.ts), unless a shared budget counts them. */
  #keptForOthers(now: number): number {
    return this.fleet === undefined || this.#othersCounted?.() ? 0 : this.fleet.reserve(now);
  }

  /** Whether the free slots may still be handed out: in their window, while the quota is not scarce. */
  #usable(now: number): boolean {
    const q = this.#quota;
    if (!ks.windowCurrent(q, this.#gateUntil, now, this.marginMs) || q.resetAt !== this.#blockWindow || now >= this.#usableUntil) return false;
    return this.#eager || this.#closed || q.remaining - this.#keptForOthers(now) >= this.#lowWater(q.limit);
  }

  #take(): Out | undefined {
    const now = this.#clock.now();
    if (this.#gateUntil > now) return undefined;
    if (this.#probeFree) {
      this.#probeFree = false;
      return this.#issue(now, true);
    }
    if (this.#free <= 0) return undefined;
    if (!this.#usable(now)) {
      this.#free = 0;
      this.#dirty = true;
      this.#schedule();
      return undefined;
    }
    this.#free--;
    return this.#issue(now, false);
  }

  #issue(now: number, probe: boolean): Out {
    const out: Out = { issuedAt: now, probe, order: ++this.#issued, settled: false, settle: (info) => this.#settle(out, info) };
    this.#out.set(out.order, out);
    if (probe) this.#probe = out;
    this.#peak = Math.max(this.#peak, this.#out.size);
    // Low on a block: fetch the next one while these go out.
    if (this.#batch && !this.#eager && !this.#closed && !this.#ops.running && this.#lastBlock >= 4 && this.#free <= this.#lastBlock / 2) {
      this.#prefetch = true;
      this.#background();
    }
    return out;
  }

  #settle(out: Out, info: SettleInfo = {}): Promise<void> | undefined {
    if (out.settled) return undefined;
    out.settled = true;
    this.#out.delete(out.order);
    if (this.#probe === out) this.#probe = undefined;
    const scheduled = this.#dirty && this.#alarm.pending;
    this.#dirty = true;
    let urgent = !this.#batch || this.#eager || this.#closed;
    if (info.quota && this.#takeAnswer(out, info.quota, info.gateUntil === undefined)) urgent = true;
    if (info.gateUntil !== undefined && info.gateUntil > this.#unpublished.gate) {
      this.#unpublished.gate = info.gateUntil;
      this.#gateUntil = Math.max(this.#gateUntil, info.gateUntil);
      this.#free = 0;
      urgent = true;
    }
    if (urgent) return this.#ops.run().finally(() => this.#waker.notify());
    if (this.#clock.now() - this.#lastSync >= this.#o.flushMs) this.#background();
    else if (!scheduled) this.#schedule();
    this.#waker.notify();
    return undefined;
  }

  /** Takes in an answer's quota; true when it is down to the low-water mark (the others should know now). */
  #takeAnswer(out: Out, q: Quota, counted: boolean): boolean {
    this.fleet?.observe(q, this.#clock.now() - out.issuedAt, counted, out.order, this.#out.keys());
    this.#quota = ks.mergeQuota(this.#quota, q, out.issuedAt);
    this.#unpublished.add(q, out.issuedAt);
    return q.remaining < this.#lowWater(q.limit);
  }

  #background(): void {
    this.#ops.run().catch((error: unknown) => this.#o.debug(`rate-limit state: ${(error as Error)?.message ?? String(error)}`));
  }

  async #runSync(): Promise<void> {
    await Promise.resolve(); // requests started in this turn count first: one operation reserves for all
    const granted = await this.#store.update(
      this.key,
      (s) => this.#apply(s),
      (stamp) => void (this.#seen = stamp),
    );
    this.#schedule();
    if (granted > 0) this.#waker.notify();
  }

  /** The store operation (under its lock): publish, learn, rewrite this limiter's slots, reserve. Returns the slots granted. */
  #apply(s: KeyRateState): number {
    const now = this.#clock.now();
    ks.pruneLeases(s, now, this.#gone);
    // The slots its answers used are dropped in the same write.
    this.#unpublished.publish(s);
    this.#dirty = false;
    this.#lastSync = now;
    this.#learn(s, now);
    if (s.quota) this.#quota = s.quota;
    for (const out of this.#out.values()) {
      if (out.issuedAt + this.#o.leaseMs > now) continue;
      this.#out.delete(out.order);
      if (this.#probe === out) this.#probe = undefined;
    }
    this.#probeFree = false;
    const reserve = this.#keptForOthers(now);
    if (ks.otherHolders(s.leases, this.#holder) > 0) this.#localPeersAt = now;
    const learning = this.#learning(s, reserve, now);
    const q = s.quota;
    this.#eager =
      !this.#batch || this.#closed || learning || !ks.windowCurrent(q, s.gateUntil, now, this.marginMs) || q.remaining - reserve < this.#lowWater(q.limit);
    if (this.#free > 0 && !this.#usable(now)) this.#free = 0;
    if (this.#eager) this.#free = Math.min(this.#free, this.#demand);
    const outs = Array.from(this.#out.values(), (out) => out.issuedAt + this.#o.leaseMs);
    const write = ks.writeSlots(s, this.#holder, outs, now + this.#o.holdMs + this.#o.leaseMs);
    // Unused slots of a block are marked '~': others poll for them instead of waiting for the reset.
    const add = (count: number, mark: '#' | '~' = this.#eager ? '#' : '~') => void (this.#written = write(count, mark));
    add(this.#free);
    const granted = this.#grant(s, now, reserve, learning, add);
    this.#usableUntil = now + this.#o.holdMs;
    return granted;
  }

  /** One request at a time while the pace of other machines is being learnt, unless so much is left it cannot matter. */
  #learning(s: KeyRateState, reserve: number, now: number): boolean {
    const fleet = this.fleet;
    if (!fleet || !ks.windowCurrent(s.quota, s.gateUntil, now, this.marginMs)) return false;
    const alone = now - this.#localPeersAt > this.#o.holdMs;
    return (fleet.learning || (fleet.active && alone)) && !this.#plentiful(s.quota, reserve, now);
  }

  /** Reserves slots for the acquirers waiting (or the next block); returns how many. */
  #grant(s: KeyRateState, now: number, reserve: number, learning: boolean, add: (count: number, mark?: '#' | '~') => void): number {
    this.#asked = {};
    let wanted = Math.max(this.#demand - this.#free, this.#prefetch && !this.#eager ? 1 : 0);
    this.#prefetch = false;
    if (learning) {
      wanted = Math.min(wanted, Math.max(0, 1 - this.#out.size - this.#free));
      if (this.#demand > 0 && wanted === 0) this.#asked = { decision: { kind: 'poll' } };
    }
    if (wanted <= 0) return 0;
    const d = this.#decide(s, now, reserve);
    if (d.kind !== 'go') return 0;
    if (d.probe) {
      this.#probeFree = true;
      add(1, '#');
      return 1;
    }
    const k = this.#blockSize(s, s.quota as Quota, wanted, reserve, now);
    this.#free += k;
    this.#blockWindow = (s.quota as Quota).resetAt;
    add(k);
    return k;
  }

  /** decide(); late into a window the others have probably used up, a wait for the next one. */
  #decide(s: KeyRateState, now: number, reserve: number): Decision {
    const q = s.quota;
    const d = ks.decide(s, now, this.marginMs, this.#holder, reserve);
    const quota = q && { ...q, remaining: Math.max(0, q.remaining - ks.slotCount(s.leases)) };
    this.#asked = { decision: d, quota, ...(d.kind === 'wait' && d.reason === 'quota' && reserve > 0 ? { kept: reserve } : {}) };
    const usedUntil = d.kind === 'go' && d.probe && q && !this.#othersCounted?.() ? this.fleet?.usedUpUntil(q, now, this.marginMs) : undefined;
    if (usedUntil === undefined || !q) return d;
    const wait: Decision = { kind: 'wait', reason: 'quota', until: usedUntil + this.marginMs };
    this.#asked = { decision: wait, quota: { limit: q.limit, remaining: 0, resetAt: usedUntil, seenAt: now }, usedByOthers: true };
    return wait;
  }

  /** Slots to reserve: in batches at most a share of the unreserved; what is wanted, then twice the last, or a full block while plentiful. */
  #blockSize(s: KeyRateState, q: Quota, wanted: number, reserve: number, now: number): number {
    const unreserved = q.remaining - ks.slotCount(s.leases);
    if (this.#eager) return Math.max(1, Math.min(wanted, unreserved - reserve));
    // Others seen only in the answers (another machine) count as one more holder.
    const holders = ks.otherHolders(s.leases, this.#holder) + (this.fleet?.active ? 1 : 0);
    const share = Math.floor((unreserved - reserve) / (2 * holders + 1));
    const next = (this.#lastBlock > 0 || wanted > 1) && this.#plentiful(q, reserve, now) ? this.#o.maxBlock : 2 * this.#lastBlock;
    const k = Math.max(1, Math.min(this.#o.maxBlock, share, Math.max(wanted, next), unreserved));
    this.#lastBlock = k;
    return k;
  }

  #schedule(): void {
    let at = Number.POSITIVE_INFINITY;
    if (this.#batch && !this.#closed) {
      if (this.#dirty) at = this.#lastSync + this.#o.flushMs;
      if (this.#free > 0 || this.#probeFree) at = Math.min(at, this.#usableUntil, this.#blockWindow > 0 ? this.#blockWindow + this.marginMs : at);
    }
    this.#alarm.set(at);
  }
}
