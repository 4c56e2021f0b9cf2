// The per-key rate-limit gate every request passes before it leaves.
//
// State of one key (environment + API key), kept in a RateStateStore: in memory
// for one process, or in a file shared by every petstore process (src/ratelimit/rate-state.ts):
//   quota      the latest X-RateLimit-* seen (limit, remaining, reset)
//   gateUntil  after a 429, no request leaves before this instant
//   leases     slots counted as in flight (reserved), each with an expiry so a crashed process's slots free up
//
// A request may leave when
//   - the gate is open, and
//   - the quota is known and current (its window has not ended) and remaining > slots reserved, or
//   - the quota is unknown or its window has ended and no other request is in flight: it goes alone, as a
//     probe, and its headers tell the others how many may follow.
// When remaining is used up it waits for the reset instant (+ a safety margin) instead of provoking a 429.
// "Remaining > reserved" is what keeps many concurrent requests (bulk seeding, parallel processes) from
// collectively overshooting: the server never sees more requests than it said it would accept, so no
// request is refused while another is still on its way (which the server could treat as an early retry).
//
// Batching (on for the shared file, see `batch`): going to the store for every request and every answer
// is what a shared file makes expensive, so while the quota is plentiful a limiter
//   - reserves a block of slots in one store operation and hands them out without touching the store
//     (a block is at most a share of what nobody has reserved: floor(unreserved / (2 × other holders + 1)),
//     growing from the number of waiting requests up to `maxBlock`);
//   - keeps the answers' quota in memory and publishes it, together with the slots used up, at most every
//     `flushMs`, when it needs more slots, and at once when it matters (a 429/403 gate, remaining down to
//     the low-water mark, close());
//   - gives back unused slots when they lapse (`holdMs` without a store operation), at the window's reset
//     (a block belongs to the window it was reserved in) and on close().
// A slot stays counted in the store until the quota of its answer is published in the same operation, so
// the sum over processes never exceeds what the server said. When remaining is low (under 2 × the
// requests this process runs at once, or under 10% of the limit), the quota is unknown or the window has
// ended, it works one request at a time as above: slots only for requests that are waiting, answers
// published at once.

import { InterruptedError } from '../errors/errors.js';
import { processAlive, thisHost } from '../fs/local-process.js';
import { announcedSleep, sleep, type Clock } from '../time/clock.js';
import { FleetEstimator, quotaWindow, type FleetOptions } from './fleet.js';
import { type LimitWindow, rateLimitGiveUp } from './give-up.js';
import type { Quota } from './quota.js';
import { ServerClock } from './server-clock.js';

export interface KeyRateState {
  /** The latest quota the server reported for the key. */
  quota?: Quota | undefined;
  /** Epoch ms before which no request may leave (after a 429); 0 when open. */
  gateUntil: number;
  /**
   * Reserved slots: id -> epoch ms at which the reservation lapses if never settled. A limiter's ids are
   * "<holder>#<n>" for slots in flight and "<holder>~<n>" for slots reserved in a block and not yet used
   * (they may be handed back); "<holder>~<n>*<count>" is `count` such unused slots in one entry, so a
   * block of 512 costs the file one entry, not 512 (issue #18; a petstore from before counts it as one
   * slot). Any other id is one slot too. Count with slotCount().
   */
  leases: Record<string, number>;
}

/** Where key states live. `update` must be atomic with respect to every other user of the same state. */
export interface RateStateStore {
  /**
   * Runs `change` (exactly once) on the key's current state and saves what it changed; returns its result.
   * `saved` gets stamp() as of the end of the operation (before anyone else can change the state), so
   * the caller need not read back what it has just written.
   */
  update<T>(key: string, change: (state: KeyRateState) => T, signal?: AbortSignal, saved?: (stamp: unknown) => void): Promise<T>;
  /** The key's state as last saved (no lock, may be stale). */
  get(key: string): Promise<KeyRateState | undefined>;
  /**
   * A cheap token (no lock, no read) that differs whenever the saved state may have changed since the
   * last call returned it. Lets a limiter that needs nothing from the store notice a gate another
   * process closed. Optional.
   */
  stamp?(): unknown;
}

export function emptyState(): KeyRateState {
  return { gateUntil: 0, leases: {} };
}

/** Keeps state in this process only. */
export class MemoryRateStateStore implements RateStateStore {
  readonly #states = new Map<string, KeyRateState>();
  #generation = 0;

  async update<T>(key: string, change: (state: KeyRateState) => T, _signal?: AbortSignal, saved?: (stamp: unknown) => void): Promise<T> {
    let s = this.#states.get(key);
    if (!s) {
      s = emptyState();
      this.#states.set(key, s);
    }
    this.#generation++;
    const value = change(s);
    saved?.(this.#generation);
    return value;
  }

  async get(key: string): Promise<KeyRateState | undefined> {
    const s = this.#states.get(key);
    return s && structuredClone(s);
  }

  stamp(): number {
    return this.#generation;
  }
}

/**
 * Combines a newly seen quota with the stored one. Within one window (same
 * reset) remaining only goes down, so the lower value wins whatever order the
 * responses arrive in; of two windows, the later one, or the one whose request
 * left (`sentAt`) after the other was seen.
 */
export function mergeQuota(old: Quota | undefined, seen: Quota, sentAt = Number.NEGATIVE_INFINITY): Quota {
  if (!old) return seen;
  if (seen.resetAt === old.resetAt) {
    return { limit: seen.limit, remaining: Math.min(old.remaining, seen.remaining), resetAt: seen.resetAt, seenAt: Math.max(old.seenAt, seen.seenAt) };
  }
  return takesOver(old, seen, sentAt) ? seen : old;
}

/**
 * Of two windows, whether `seen`'s is the one to go by. A response from an earlier window can arrive
 * after one from the next (concurrent requests): the later window is the truth, whichever answer came
 * last. Unless `seen` answers a request sent (`sentAt`, same clock) after `old` was seen: the server
 * counted it after it gave `old`, so its window is the newer word even when it resets sooner (the
 * server's windows were reset, the plan changed, the daily limit no longer binds).
 */
function takesOver(old: Quota, seen: Quota, sentAt: number): boolean {
  return seen.resetAt > old.resetAt || sentAt > old.seenAt;
}

/** The send time that goes with mergeQuota(pending, seen, sentAt): the latest request's of the window it keeps. */
function sentAtAfter(pending: Quota | undefined, pendingSentAt: number, seen: Quota, sentAt: number): number {
  if (pending === undefined) return sentAt;
  if (pending.resetAt === seen.resetAt) return Math.max(pendingSentAt, sentAt);
  return takesOver(pending, seen, sentAt) ? sentAt : pendingSentAt;
}

export type Decision =
  | { kind: 'go'; probe: boolean }
  | { kind: 'wait'; reason: 'gate' | 'quota'; until: number }
  /** Other requests are in flight (or reserved and maybe handed back) and decide; look again shortly. */
  | { kind: 'poll' };

/** How many slots a lease id stands for: `count` of "…~<n>*<count>", else 1. */
function slotsOf(id: string): number {
  const star = id.lastIndexOf('*');
  if (star < 0) return 1;
  const n = Number(id.slice(star + 1));
  return Number.isSafeInteger(n) && n > 0 ? n : 1;
}

/** The slots counted as reserved in a key's state. */
export function slotCount(leases: Record<string, number>): number {
  let n = 0;
  for (const id in leases) n += slotsOf(id);
  return n;
}

/** Drops reservations whose owner never came back. */
export function pruneLeases(state: KeyRateState, now: number, gone?: (holder: string) => boolean): void {
  const judged = new Map<string, boolean>();
  for (const [id, expires] of Object.entries(state.leases)) {
    if (expires <= now) {
      delete state.leases[id];
      continue;
    }
    if (!gone) continue;
    const holder = leaseHolder(id);
    let dead = judged.get(holder);
    if (dead === undefined) {
      dead = gone(holder);
      judged.set(holder, dead);
    }
    if (dead) delete state.leases[id];
  }
}

/**
 * Whether a holder ("<pid>@<host>/<n>") is a process of this host that no longer runs: its slots are
 * free at once, not when they lapse (a run killed with kill -9 would otherwise make the next one wait
 * up to a minute). Holders of other hosts, and ids of older versions, lapse as before.
 */
export function deadHolder(alive: (pid: number) => boolean = processAlive): (holder: string) => boolean {
  return (holder) => {
    const m = /^(\d+)@(.+)\/[0-9a-z]+$/.exec(holder);
    return m !== null && m[2] === thisHost && Number(m[1]) !== process.pid && !alive(Number(m[1]));
  };
}

/** The holder of a slot id: "<holder>" of "<holder>#<n>" / "<holder>~<n>"; the process id of any other. */
function leaseHolder(id: string): string {
  const m = /^(.+)[#~][0-9a-z]+(?:\*\d+)?$/.exec(id);
  return m ? m[1]! : (id.split('.')[0] ?? id);
}

/** Whether a lease id is one of `holder`'s slots. */
const isOwn = (id: string, holder: string) => id.startsWith(holder) && (id[holder.length] === '#' || id[holder.length] === '~');
/** An unused slot of a block (may be handed back). */
const isSpare = (id: string) => /~[0-9a-z]+(?:\*\d+)?$/.test(id);

/** Whether a quota describes a window that is still running, given the key's gate. */
function windowCurrent(q: Quota | undefined, gateUntil: number, now: number, marginMs: number): q is Quota {
  if (!q) return false;
  // X-RateLimit-Reset is whole seconds and the server's clock may differ from ours: a window
  // counts as current until its reset plus the margin.
  // A gate that opens at or after the window's reset ends that window: the server's
  // Retry-After is the more precise word on when it resets.
  const gateEndedWindow = gateUntil > 0 && gateUntil >= q.resetAt && now >= gateUntil;
  return now < q.resetAt + marginMs && !gateEndedWindow;
}

/**
 * Whether a request may leave now (pure; `state` should be pruned first). `self` is the asking
 * limiter's holder id: its own unused reservations are not a reason to poll. `reserve` requests of the
 * remaining are kept for others who share the key and not the state (src/ratelimit/fleet.ts).
 */
export function decide(state: KeyRateState, now: number, marginMs: number, self?: string, reserve = 0): Decision {
  if (state.gateUntil > now) return { kind: 'wait', reason: 'gate', until: state.gateUntil };
  const ids = Object.keys(state.leases);
  const inFlight = slotCount(state.leases);
  const q = state.quota;
  if (windowCurrent(q, state.gateUntil, now, marginMs)) {
    if (q.remaining - inFlight - reserve > 0) return { kind: 'go', probe: false };
    if (reserve > 0 && q.remaining - inFlight > 0) return { kind: 'wait', reason: 'quota', until: q.resetAt + marginMs };
    // Some of what is counted is another process's unused reservation, which comes back when it
    // lapses or is returned: look again shortly instead of waiting for the reset.
    if (q.remaining > 0 && ids.some((id) => isSpare(id) && !(self !== undefined && isOwn(id, self)))) return { kind: 'poll' };
    return { kind: 'wait', reason: 'quota', until: q.resetAt + marginMs };
  }
  if (inFlight === 0) return { kind: 'go', probe: true };
  return { kind: 'poll' };
}

interface BatchOptions {
  /** The most slots reserved in one store operation. Default 64. */
  maxBlock?: number;
  /** The longest answers' quotas wait in memory before they are published. Default 100 ms. */
  flushMs?: number;
  /** How long reserved slots stay usable after the last store operation. Default 2 s. */
  holdMs?: number;
}

export interface LimiterOptions {
  clock: Clock;
  /** The state key: "<env>:<hash of the API key>". */
  key: string;
  store?: RateStateStore;
  /**
   * Added to reset instants and HTTP-date gates (whole seconds, the server's clock). Default: what the
   * server's Date headers prove of its clock (src/ratelimit/server-clock.ts), 250 ms until they tell.
   */
  marginMs?: number;
  /** How often to look again while other requests are in flight. Default 50 ms. */
  pollMs?: number;
  /** How long a reservation holds if its request never settles (process killed). Default 60 s. */
  leaseMs?: number;
  /**
   * Reserve slots in blocks and publish answers lazily while the quota is plentiful (worth it when
   * the store is a shared file). Off (the default): every acquire and settle goes to the store.
   */
  batch?: boolean | BatchOptions;
  /** Problems of background store operations. */
  debug?: (line: string) => void;
  /** Whether a process of this host runs (the slots of one that does not are freed). Default: ask the OS. */
  processAlive?: (pid: number) => boolean;
  /**
   * Learn from X-RateLimit-Remaining how fast others who share the key but not the store use it, and keep
   * a margin for them (src/ratelimit/fleet.ts). On by default; `false` turns it off.
   */
  fleet?: boolean | FleetOptions;
  /**
   * True while a budget shared by the fleet (--limiter, fleet-budget.ts) counts every request of the
   * key exactly: the others need no estimate then, and nothing is kept back for them.
   */
  othersCounted?: () => boolean;
}

export interface WaitInfo {
  reason: 'gate' | 'quota';
  /** How long this wait lasts. */
  ms: number;
  /** Epoch ms at which it ends. */
  until: number;
  /** The stored quota, with `remaining` less the slots already reserved. */
  quota: Quota | undefined;
  /** The window whose quota binds: 'day' when it is the daily limit (see quotaWindow in fleet.ts). */
  window?: LimitWindow | undefined;
  /** Requests of the remaining kept for other users of the key (separate machines), when that is why it waits. */
  kept?: number | undefined;
  /** It waits for the next window because other users of the key have probably used this one up (an estimate). */
  usedByOthers?: boolean | undefined;
}

/** Called before each wait; may return a function called when the wait ends (a spinner's stop). */
type OnWait = (info: WaitInfo) => void | (() => void) | Promise<void | (() => void)>;

export interface AcquireOptions {
  signal?: AbortSignal | undefined;
  /** A gate or quota wait longer than this fails with RateLimitedError (exit 6). Default: no limit. */
  maxWaitMs?: number | undefined;
  onWait?: OnWait | undefined;
  /**
   * A request that asks the server what the quota is (petstore quota, auth status): an exhausted quota
   * whose reset is further away than maxWaitMs does not hold it back, since only the server can say
   * whether the last answer still holds (its windows were reset, the plan changed). A quota wait within
   * maxWaitMs is waited as usual, and a gate the server set (a 429's Retry-After, a ban) always holds.
   */
  asksQuota?: boolean | undefined;
}

export interface SettleInfo {
  /** Quota from the response's headers, if any. */
  quota?: Quota | undefined;
  /** After a 429: no request with this key leaves before this instant. */
  gateUntil?: number | undefined;
}

/** A reserved slot: settle it exactly once, when the answer (or failure) is in. */
export interface Permit {
  /** The request goes alone because the quota is not known. */
  readonly probe: boolean;
  /** A promise only when the answer must reach the store before the caller goes on (scarce quota, a 429). */
  settle(info?: SettleInfo): Promise<void> | undefined;
}

/** A slot handed out and not settled yet: its own permit (one object per request of a bulk run, issue #18). */
class Out implements Permit {
  settled = false;
  constructor(
    readonly issuedAt: number,
    /** It went alone to learn the quota. */
    readonly probe: boolean,
    /** 1, 2, 3...: the order this limiter's permits were issued in. */
    readonly order: number,
    readonly owner: (out: Out, info: SettleInfo | undefined) => Promise<void> | undefined,
  ) {}

  settle(info?: SettleInfo): Promise<void> | undefined {
    return this.owner(this, info);
  }
}

let holderCounter = 0;

/** Why the limiter's own sleeps end early: a reason given, so abort() makes no DOMException (and its stack) each time. */
const STOPPED = new Error('the limiter stopped its own wait');

export class RateLimiter {
  readonly key: string;
  readonly #clock: Clock;
  readonly #store: RateStateStore;
  readonly #fixedMarginMs: number | undefined;
  readonly #serverClock = new ServerClock();
  readonly #pollMs: number;
  readonly #leaseMs: number;
  readonly #batch: boolean;
  readonly #maxBlock: number;
  readonly #flushMs: number;
  readonly #holdMs: number;
  readonly #debug: (line: string) => void;
  /** What this process learns about others using the key from its own answers; undefined when off. */
  readonly #fleet: FleetEstimator | undefined;
  readonly #othersCounted: (() => boolean) | undefined;
  /** The reserve kept for them in the last store operation that asked for slots. */
  #kept = 0;
  /** The last decision waits because the others have probably used the window up (FleetEstimator.usedUpUntil). */
  #usedByOthers = false;
  /** When the store last showed another holder's slots (a process on this machine). */
  #localPeersAt = Number.NEGATIVE_INFINITY;
  /** This limiter's name in the store's lease ids. */
  readonly #holder = `${process.pid}@${thisHost}/${(++holderCounter).toString(36)}${Math.random().toString(36).slice(2, 8)}`;
  readonly #gone: (holder: string) => boolean;

  // What this process knows: its own answers plus what it last read from the store.
  #quota: Quota | undefined;
  #gateUntil = 0;

  // The slots this limiter holds in the store: in flight, and reserved but unused ("free").
  /** By order: its keys are what the fleet estimator asks for (no generator per answer). */
  readonly #out = new Map<number, Out>();
  #free = 0;
  /** One slot granted for a probe (the quota is unknown): handed out alone. */
  #probeFree = false;
  /** This limiter's probe while it is in flight: its answer, not the store, says what comes next. */
  #probe: Out | undefined;
  /** The reset instant of the window the free slots were reserved in. */
  #blockWindow = 0;
  /** Free slots are not handed out after this instant without a store operation. */
  #usableUntil = 0;
  /**
   * The lane (issue #18): until this instant free slots go out with no check but the look, and answers
   * of the block's window are folded into the quota in place. It opens where #usable holds with nothing
   * about to change it (the quota of the block's window, no gate, no others seen, not one request at a
   * time) and closes on anything else; 0 when closed.
   */
  #laneUntil = 0;
  /** In the lane, an answer with less remaining than this (the low-water mark) leaves it. */
  #laneFloor = 0;
  /** The pending quota the lane made, the one it may change in place. */
  #lanePending: Quota | undefined;
  #lastBlock = 0;
  /** One request at a time (scarce or unknown quota): grants only for waiters, answers published at once. */
  #eager = true;
  /** How many slots the store holds for this limiter since the last operation. */
  #written = 0;

  // Learnt and not yet published.
  #pendingQuota: Quota | undefined;
  /** When the latest request whose answer is in #pendingQuota's window left (mergeQuota's `sentAt`). */
  #pendingSentAt = Number.NEGATIVE_INFINITY;
  #pendingGate = 0;
  /** Something to publish (an answer's quota, used-up or voided slots). */
  #dirty = false;
  #lastSync = Number.NEGATIVE_INFINITY;

  /** Acquirers that want a slot now (in a store operation or polling). */
  #demand = 0;
  /** Permits issued so far (each one's order). */
  #issued = 0;
  #prefetch = false;
  #peak = 1;
  /** What the last store operation that asked for slots decided, and the quota for messages. */
  #decision: Decision | undefined;
  #decisionQuota: Quota | undefined;

  #running: Promise<void> | undefined;
  #queued: Promise<void> | undefined;
  #seen: unknown;
  #lookedAt = Number.NaN;
  /** A look that found the store changed, while its read is under way. */
  #looking: Promise<void> | undefined;
  #timer: { at: number; stop: AbortController } | undefined;
  #closed = false;

  /** Woken whenever a permit of this limiter settles or slots arrive, so in-process waiters need not poll. */
  #wake: (() => void) | undefined;
  /** Counts the wake-ups, so a waiter notices one that came before it started to sleep. */
  #wakes = 0;
  #woken: Promise<void> | undefined;

  constructor(opts: LimiterOptions) {
    this.key = opts.key;
    this.#clock = opts.clock;
    this.#store = opts.store ?? new MemoryRateStateStore();
    this.#fixedMarginMs = opts.marginMs;
    this.#pollMs = opts.pollMs ?? 50;
    this.#leaseMs = opts.leaseMs ?? 60_000;
    const batch = opts.batch === true ? {} : opts.batch || undefined;
    this.#batch = batch !== undefined;
    this.#maxBlock = Math.max(1, Math.floor(batch?.maxBlock ?? 64));
    this.#flushMs = Math.max(0, batch?.flushMs ?? 100);
    this.#holdMs = Math.max(1, batch?.holdMs ?? 2000);
    this.#debug = opts.debug ?? (() => {});
    this.#gone = deadHolder(opts.processAlive);
    this.#fleet = opts.fleet === false ? undefined : new FleetEstimator(opts.fleet === true ? {} : opts.fleet);
    this.#othersCounted = opts.othersCounted;
  }

  /** Others' use of the key as this process has measured it (for --debug and tests). */
  get fleet(): { active: boolean; othersPerSecond: number; rttMs: number } | undefined {
    const f = this.#fleet;
    return f && { active: f.active, othersPerSecond: f.othersPerSecond, rttMs: f.rttMs };
  }

  /** Whose limit `q` (by default the latest quota) is: the daily or the minute one; undefined when no quota was seen. */
  windowOf(q: Quota | undefined = this.#quota): LimitWindow | undefined {
    if (!q) return undefined;
    const w = this.#fleet ? this.#fleet.window(q) : quotaWindow(q);
    return w === 'day' ? 'day' : 'minute';
  }

  get marginMs(): number {
    return this.#fixedMarginMs ?? this.#serverClock.marginMs;
  }

  /** Takes in an answer's Date header, with when its request left and it arrived: the margin follows (server-clock.ts). */
  observeServerDate(date: string | undefined, sentAt: number, receivedAt: number): void {
    this.#serverClock.observe(date, sentAt, receivedAt);
  }

  /** The stored state, with what this process knows and has not published yet (for messages and `petstore quota --cached`). */
  async state(): Promise<KeyRateState | undefined> {
    const s = await this.#store.get(this.key);
    if (!s && !this.#quota && this.#gateUntil === 0) return undefined;
    const out = s ?? emptyState();
    // A copy: the lane changes its quota in place.
    if (this.#quota) out.quota = mergeQuota(out.quota, { ...this.#quota });
    out.gateUntil = Math.max(out.gateUntil, this.#gateUntil);
    return out;
  }

  /**
   * A slot at once, without a promise, when one reserved earlier is free and the store has not changed
   * since it was last read (#look: the store's stamp, at most once a millisecond): the path of nearly every request
   * of a bulk run (issue #18). Undefined otherwise: then acquire().
   */
  tryAcquire(signal?: AbortSignal): Permit | undefined {
    if (signal?.aborted || !(this.#free > 0 || this.#probeFree)) return undefined;
    const now = this.#clock.now();
    // The store changed since the last look: what it says is read first (acquire() waits for it).
    if (this.#look(now) || this.#looking) return undefined;
    if (now < this.#laneUntil && this.#free > 0) {
      this.#free--;
      return this.#issue(now, false);
    }
    return this.#take();
  }

  /** Waits until a request may leave and reserves a slot for it. */
  async acquire(opts: AcquireOptions = {}): Promise<Permit> {
    const { signal } = opts;
    const maxWaitMs = opts.maxWaitMs ?? Number.POSITIVE_INFINITY;
    for (;;) {
      if (signal?.aborted) throw new InterruptedError();
      // The fast path: a slot reserved earlier, no store operation.
      if (this.#free > 0 || this.#probeFree) {
        const looking = this.#look() ?? this.#looking;
        if (looking) await looking;
        const permit = this.#take();
        if (permit) return permit;
      }
      if (this.#gateUntil > this.#clock.now()) {
        const q = this.#quota;
        await this.#waitOut({ reason: 'gate', until: this.#gateUntil }, q && { ...q, remaining: Math.max(0, q.remaining - this.#out.size) }, opts, maxWaitMs);
        continue;
      }
      let decision: Decision | undefined;
      const wakes = this.#wakes;
      this.#demand++;
      // More waiting than ever went out at once raises the low-water mark the lane was opened with.
      this.#laneUntil = 0;
      try {
        if (this.#running) {
          // A store operation is under way (perhaps fetching the next block): see what it brings first.
          await abortable(
            this.#running.catch(() => {}),
            signal,
          );
          const permit = this.#take();
          if (permit) return permit;
        }
        const probe = this.#probe;
        if (probe && this.#clock.now() - probe.issuedAt < this.#leaseMs) {
          // The quota is being learnt from this limiter's own probe: wait for its answer (its settle
          // wakes this) rather than ask the store, which would only say to wait (a cold store operation
          // per request arriving meanwhile, at the start of every run).
          await this.#pause(this.#pollMs, signal);
          continue;
        }
        await abortable(this.#sync(), signal);
        const permit = this.#take();
        if (permit) return permit;
        decision = this.#decision;
        if (decision?.kind === 'poll') await this.#pause(this.#pollMs, signal);
      } finally {
        this.#demand--;
      }
      // 'go' whose slots others took, or no decision: ask again.
      if (decision?.kind !== 'wait') continue;
      if (opts.asksQuota && decision.reason === 'quota' && this.#out.size === 0) {
        const now = this.#clock.now();
        // Alone, like a probe: its answer is the quota (AcquireOptions.asksQuota).
        if (decision.until - now > maxWaitMs && this.#gateUntil <= now) return this.#issue(now, true);
      }
      // Remaining used up while requests of this limiter are in flight: each stays counted until its
      // answer is in, yet the server may already have counted it in the remaining seen (answers arrive
      // in any order), so there may be room after all. Decide again when one settles; wait for the
      // reset (and announce it) only when none of ours is in flight.
      if (decision.reason === 'quota' && this.#out.size > 0) {
        await this.#waitOut(decision, this.#decisionQuota, opts, maxWaitMs, wakes);
        continue;
      }
      await this.#waitOut(decision, this.#decisionQuota, opts, maxWaitMs);
    }
  }

  /**
   * Publishes what this process learnt and gives back the slots it holds unused. Call it when done
   * (ApiClient.close); the limiter stays usable, one request at a time.
   */
  async close(): Promise<void> {
    this.#closed = true;
    this.#cancelTimer();
    this.#free = 0;
    this.#laneUntil = 0;
    this.#probeFree = false;
    if (this.#written > 0 || this.#dirty || this.#pendingQuota !== undefined || this.#pendingGate > 0 || this.#running) await this.#sync();
    this.#cancelTimer();
  }

  /**
   * Sleeps until `d.until`. With `wakes` (the count of wake-ups when the decision was asked for):
   * silently, and only until the next wake-up (a permit of this limiter settles), at once if one came meanwhile.
   */
  async #waitOut(
    d: { reason: 'gate' | 'quota'; until: number },
    quota: Quota | undefined,
    opts: AcquireOptions,
    maxWaitMs: number,
    wakes?: number,
  ): Promise<void> {
    // Never call onWait from inside the caller's acquire() call itself (it may start another request).
    await Promise.resolve();
    const now = this.#clock.now();
    const ms = Math.max(0, d.until - now);
    if (ms > maxWaitMs) {
      const resetAt = d.reason === 'quota' && quota ? quota.resetAt : d.until;
      const window = this.windowOf(quota ?? this.#quota);
      throw rateLimitGiveUp(
        {
          kind: 'too_long',
          waitMs: ms,
          maxWaitMs,
          cause: d.reason,
          ...(quota ? { remaining: quota.remaining, limit: quota.limit } : {}),
          window,
          // A day's figures with nothing of this process's own in them (it sent nothing yet): an earlier
          // command's, which may no longer hold (a minute's lapse before they could matter).
          ...(d.reason === 'quota' && quota && this.#issued === 0 && window === 'day' ? { seenAt: quota.seenAt } : {}),
        },
        resetAt,
        now,
      );
    }
    if (wakes !== undefined) {
      if (this.#wakes === wakes) await this.#pause(ms, opts.signal);
      return;
    }
    const { onWait } = opts;
    const window = this.windowOf(quota ?? this.#quota);
    const kept = d.reason === 'quota' && this.#kept > 0 ? this.#kept : undefined;
    const usedByOthers = d.reason === 'quota' && this.#usedByOthers ? true : undefined;
    await announcedSleep(this.#clock, ms, opts.signal, onWait && (() => onWait({ reason: d.reason, ms, until: d.until, quota, window, kept, usedByOthers })));
  }

  /** Notices a gate or a newer quota another process saved since this one last looked (a stat, no read, when unchanged). */
  #look(now = this.#clock.now()): Promise<void> | undefined {
    // At most once a millisecond: a stat costs more than handing out a slot.
    if (now === this.#lookedAt) return undefined;
    this.#lookedAt = now;
    const stamp = this.#store.stamp?.();
    if (stamp === undefined || stamp === this.#seen) return undefined;
    this.#seen = stamp;
    // Until it is read, no slot goes out, whoever asks (tryAcquire declines, acquire waits for it).
    const looking: Promise<void> = this.#store
      .get(this.key)
      .then(
        (s) => {
          if (s && this.#learn(s, this.#clock.now())) {
            this.#dirty = true;
            this.#schedule();
          }
        },
        () => {},
      )
      .finally(() => {
        if (this.#looking === looking) this.#looking = undefined;
      });
    this.#looking = looking;
    return looking;
  }

  /** Takes in what the store says; true when that voids the free slots. */
  #learn(s: KeyRateState, now: number): boolean {
    // What the store says is decided on again (#take, #apply) before the lane reopens.
    this.#laneUntil = 0;
    if (s.quota) this.#quota = mergeQuota(this.#quota, s.quota);
    if (s.gateUntil > this.#gateUntil) {
      this.#gateUntil = s.gateUntil;
      // Slots reserved before someone got a 429 are void.
      if (s.gateUntil > now && this.#free > 0) {
        this.#free = 0;
        return true;
      }
    }
    return false;
  }

  /**
   * Below this many remaining requests (less those kept for others) the limiter works one request at a
   * time; with others on other machines, from half the limit, since their blocks are not in the store.
   */
  #lowWater(limit: number): number {
    return Math.max(2 * Math.max(this.#peak, this.#demand, 1), Math.ceil(limit / (this.#fleet?.active ? 2 : 10)));
  }

  /**
   * So much is left that this key's users, at this process's most and the others' measured pace, could
   * not use half of it before the reset: nothing to learn one request at a time. (On a busy machine a
   * request that overtakes another looks like someone else's; against a large quota that must not turn a
   * bulk run into one request and one store operation at a time; issue #18.)
   */
  #plentiful(q: Quota | undefined, reserve: number, now: number): boolean {
    if (!q) return false;
    const rtt = Math.max(this.#fleet?.rttMs ?? 0, 1);
    const perMs = Math.max(this.#peak, this.#demand, 1) / rtt + (this.#fleet?.othersPerSecond ?? 0) / 1000;
    return q.remaining - reserve > 2 * perMs * Math.max(0, q.resetAt + this.marginMs - now);
  }

  /** What to keep for users of the key on other machines (fleet.ts), unless a shared budget counts them. */
  #keptForOthers(now: number): number {
    return this.#fleet === undefined || this.#othersCounted?.() ? 0 : this.#fleet.reserve(now);
  }

  /** Whether the free slots may still be handed out without a store operation. */
  #usable(now: number): boolean {
    const q = this.#quota;
    // Slots belong to the window they were reserved in, and only while it runs.
    if (!windowCurrent(q, this.#gateUntil, now, this.marginMs) || q.resetAt !== this.#blockWindow || now >= this.#usableUntil) return false;
    // Fresh headers say the quota has become scarce: back to one request at a time.
    return this.#eager || this.#closed || q.remaining - this.#keptForOthers(now) >= this.#lowWater(q.limit);
  }

  /** Hands out a free slot, if there is one and it is still good. */
  #take(): Permit | undefined {
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
    const permit = this.#issue(now, false);
    this.#openLane(now);
    return permit;
  }

  /** Opens the lane (#laneUntil) when #usable holds and nothing it depends on is about to change. */
  #openLane(now: number): void {
    this.#laneUntil = 0;
    const fleet = this.#fleet;
    if (!this.#batch || this.#eager || this.#closed || this.#free <= 0 || this.#gateUntil > now || fleet?.active || fleet?.learning) return;
    if (!this.#usable(now)) return;
    const q = this.#quota as Quota;
    // The lane's own copy, changed in place by the answers (#fold): the store's objects are never touched.
    this.#quota = { limit: q.limit, remaining: q.remaining, resetAt: q.resetAt, seenAt: q.seenAt };
    this.#laneFloor = this.#lowWater(q.limit);
    this.#laneUntil = Math.min(this.#usableUntil, q.resetAt);
  }

  #issue(now: number, probe: boolean): Permit {
    const out = new Out(now, probe, ++this.#issued, this.#settleOut);
    this.#out.set(out.order, out);
    if (probe) this.#probe = out;
    if (this.#out.size > this.#peak) {
      this.#peak = this.#out.size;
      this.#laneUntil = 0;
    }
    // Running low on a block: fetch the next one while these go out.
    if (this.#batch && !this.#eager && !this.#closed && !this.#running && this.#lastBlock >= 4 && this.#free <= this.#lastBlock / 2) {
      this.#prefetch = true;
      this.#background();
    }
    return out;
  }

  readonly #settleOut = (out: Out, info: SettleInfo | undefined) => this.#settle(out, info);

  #settle(out: Out, info: SettleInfo = {}): Promise<void> | undefined {
    if (out.settled) return undefined;
    out.settled = true;
    this.#out.delete(out.order);
    if (this.#probe === out) this.#probe = undefined;
    const q = info.quota;
    if (q !== undefined && info.gateUntil === undefined && this.#laneUntil > 0 && q.resetAt === this.#blockWindow && q.remaining >= this.#laneFloor) {
      const known = this.#quota as Quota;
      if (q.limit === known.limit) {
        this.#fold(out, q, known);
        return undefined;
      }
    }
    this.#laneUntil = 0;
    // Already dirty: the timer that publishes it is set (#schedule), and nothing it depends on changes here.
    const scheduled = this.#dirty && this.#timer !== undefined;
    this.#dirty = true;
    let urgent = !this.#batch || this.#eager || this.#closed;
    if (info.quota) {
      this.#fleet?.observe(info.quota, this.#clock.now() - out.issuedAt, info.gateUntil === undefined, out.order, this.#out.keys());
      this.#quota = mergeQuota(this.#quota, info.quota, out.issuedAt);
      this.#pendingSentAt = sentAtAfter(this.#pendingQuota, this.#pendingSentAt, info.quota, out.issuedAt);
      this.#pendingQuota = mergeQuota(this.#pendingQuota, info.quota, out.issuedAt);
      // Down to the low-water mark: the others should know now.
      if (info.quota.remaining < this.#lowWater(info.quota.limit)) urgent = true;
    }
    if (info.gateUntil !== undefined && info.gateUntil > this.#pendingGate) {
      this.#pendingGate = info.gateUntil;
      if (info.gateUntil > this.#gateUntil) this.#gateUntil = info.gateUntil;
      this.#free = 0;
      urgent = true;
    }
    if (urgent) return this.#sync().finally(() => this.#notify());
    this.#publishLater(this.#clock.now(), scheduled);
    return undefined;
  }

  /** What is kept goes to the store within flushMs: now when that is due, else by the timer (set unless `scheduled`). */
  #publishLater(now: number, scheduled: boolean): void {
    if (now - this.#lastSync >= this.#flushMs) this.#background();
    else if (!scheduled) this.#schedule();
    this.#notify();
  }

  /**
   * An answer in the lane: what #settle does with it, for the usual answer of a bulk run. The quota
   * of the lane's window, with as much remaining as the low-water mark or more, so nothing is urgent:
   * its remaining and time are folded into the quota known and the quota to publish, in place.
   */
  #fold(out: Out, q: Quota, known: Quota): void {
    const now = this.#clock.now();
    const fleet = this.#fleet;
    if (fleet) {
      fleet.observe(q, now - out.issuedAt, true, out.order, this.#out.keys());
      if (fleet.active) this.#laneUntil = 0;
    }
    if (q.remaining < known.remaining) known.remaining = q.remaining;
    if (q.seenAt > known.seenAt) known.seenAt = q.seenAt;
    const pending = this.#pendingQuota;
    if (pending === undefined || pending !== this.#lanePending || pending.resetAt !== q.resetAt || pending.limit !== q.limit) {
      // The lane's own object (an answer's may be held elsewhere too), changed in place until it is
      // published; once in the store it is never changed (#apply lets go of it).
      this.#pendingSentAt = sentAtAfter(pending, this.#pendingSentAt, q, out.issuedAt);
      this.#pendingQuota = { ...mergeQuota(pending, q, out.issuedAt) };
      this.#lanePending = this.#pendingQuota;
    } else {
      if (q.remaining < pending.remaining) pending.remaining = q.remaining;
      if (q.seenAt > pending.seenAt) pending.seenAt = q.seenAt;
      if (out.issuedAt > this.#pendingSentAt) this.#pendingSentAt = out.issuedAt;
    }
    const scheduled = this.#dirty && this.#timer !== undefined;
    this.#dirty = true;
    this.#publishLater(now, scheduled);
  }

  /** One store operation at a time; a caller arriving during one gets the next, which starts after it. */
  #sync(): Promise<void> {
    if (this.#running) {
      const after = () => {
        this.#queued = undefined;
        return this.#sync();
      };
      this.#queued ??= this.#running.then(after, after);
      return this.#queued;
    }
    const running = this.#runSync().finally(() => {
      this.#running = undefined;
    });
    this.#running = running;
    return running;
  }

  #background(): void {
    this.#sync().catch((error: unknown) => this.#debug(`rate-limit state: ${(error as Error)?.message ?? String(error)}`));
  }

  async #runSync(): Promise<void> {
    // Let the requests started in the same turn say they are waiting: one operation reserves for all.
    await Promise.resolve();
    // #apply takes in the state as of this operation: only a later change is news to #look.
    const granted = await this.#store.update(
      this.key,
      (s) => this.#apply(s),
      undefined,
      (stamp) => {
        // The store was just read: it counts as this millisecond's look (#look).
        this.#seen = stamp;
        this.#lookedAt = this.#clock.now();
      },
    );
    this.#schedule();
    if (granted > 0) this.#notify();
  }

  /**
   * The store operation (under the store's lock): publish, learn, rewrite this limiter's slots, and
   * reserve for the acquirers waiting. Returns the number of slots granted.
   */
  #apply(s: KeyRateState): number {
    const now = this.#clock.now();
    pruneLeases(s, now, this.#gone);
    // Publish. The slots used since the last operation are dropped below, in this same write, so
    // every request stays counted until the quota of its answer is in the store.
    if (this.#pendingQuota) s.quota = mergeQuota(s.quota, this.#pendingQuota, this.#pendingSentAt);
    if (this.#pendingGate > s.gateUntil) s.gateUntil = this.#pendingGate;
    this.#pendingQuota = undefined;
    this.#pendingSentAt = Number.NEGATIVE_INFINITY;
    this.#lanePending = undefined;
    this.#pendingGate = 0;
    this.#dirty = false;
    this.#lastSync = now;
    this.#learn(s, now);
    // Everything this process knew is published now: the stored quota is the freshest.
    if (s.quota) this.#quota = s.quota;

    // This limiter's slots: those in flight (lapsing leaseMs after they left, as if never settled),
    // and the free ones while still good.
    for (const out of this.#out.values()) {
      if (out.issuedAt + this.#leaseMs > now) continue;
      this.#out.delete(out.order);
      if (this.#probe === out) this.#probe = undefined;
    }
    this.#probeFree = false; // not taken since the last operation: decide again
    const current = windowCurrent(s.quota, s.gateUntil, now, this.marginMs);
    const q = s.quota;
    // Others who share the key but not this store show only in the answers: keep what they will
    // probably use (fleet.ts). Until two of this limiter's answers could show a gap, nothing is known of
    // them: one request at a time (the probe's answer is the first).
    // Others who share the key and not this store (other machines): what they will probably have used
    // by the time a request sent now arrives is kept for them (fleet.ts). While they are all this
    // limiter knows of, one request at a time, so each decision is made on a fresh answer and their pace
    // stays even (the rate it learns holds); with other holders in the store (this machine), as before.
    const reserve = this.#keptForOthers(now);
    for (const id of Object.keys(s.leases)) {
      if (!isOwn(id, this.#holder)) {
        this.#localPeersAt = now;
        break;
      }
    }
    const alone = now - this.#localPeersAt > this.#holdMs;
    const learning = current && this.#fleet !== undefined && (this.#fleet.learning || (this.#fleet.active && alone)) && !this.#plentiful(q, reserve, now);
    this.#eager = !this.#batch || this.#closed || learning || !current || q === undefined || q.remaining - reserve < this.#lowWater(q.limit);
    if (this.#free > 0 && !this.#usable(now)) this.#free = 0;
    if (this.#eager) this.#free = Math.min(this.#free, this.#demand);
    const holder = this.#holder;
    for (const id of Object.keys(s.leases)) if (isOwn(id, holder)) delete s.leases[id];
    let n = 0;
    for (const out of this.#out.values()) s.leases[`${holder}#${(n++).toString(36)}`] = out.issuedAt + this.#leaseMs;
    const spareUntil = now + this.#holdMs + this.#leaseMs;
    // Unused slots of a block are marked as such: others poll for them instead of waiting for the reset.
    const mark = this.#eager ? '#' : '~';
    const addFree = (count: number) => {
      if (mark === '~' && count > 1) s.leases[`${holder}~${(n++).toString(36)}*${count}`] = spareUntil;
      else for (let i = 0; i < count; i++) s.leases[`${holder}${mark}${(n++).toString(36)}`] = spareUntil;
    };
    addFree(this.#free);

    // Reserve for the acquirers waiting (or the next block, when prefetching).
    let granted = 0;
    this.#decision = undefined;
    this.#decisionQuota = undefined;
    let wanted = Math.max(this.#demand - this.#free, this.#prefetch && !this.#eager ? 1 : 0);
    this.#prefetch = false;
    if (learning) {
      wanted = Math.min(wanted, Math.max(0, 1 - this.#out.size - this.#free));
      if (this.#demand > 0 && wanted === 0) this.#decision = { kind: 'poll' };
    }
    if (wanted > 0) {
      let d = decide(s, now, this.marginMs, holder, reserve);
      this.#usedByOthers = false;
      this.#kept = d.kind === 'wait' && d.reason === 'quota' ? reserve : 0;
      const reserved = slotCount(s.leases);
      this.#decisionQuota = q && { ...q, remaining: Math.max(0, q.remaining - reserved) };
      // Late into a window the others have probably used up by now (fleet.ts): the next one.
      const usedUntil = d.kind === 'go' && d.probe && q && !this.#othersCounted?.() ? this.#fleet?.usedUpUntil(q, now, this.marginMs) : undefined;
      if (usedUntil !== undefined && q) {
        d = { kind: 'wait', reason: 'quota', until: usedUntil + this.marginMs };
        this.#kept = 0;
        this.#decisionQuota = { limit: q.limit, remaining: 0, resetAt: usedUntil, seenAt: now };
        this.#usedByOthers = true;
      }
      this.#decision = d;
      if (d.kind === 'go' && d.probe) {
        this.#probeFree = true;
        s.leases[`${holder}#${(n++).toString(36)}`] = spareUntil;
        granted = 1;
      } else if (d.kind === 'go' && q) {
        const unreserved = q.remaining - reserved;
        let k: number;
        if (this.#eager) {
          k = Math.max(1, Math.min(wanted, unreserved - reserve));
        } else {
          const others = new Set<string>();
          for (const id of Object.keys(s.leases)) if (!isOwn(id, holder)) others.add(leaseHolder(id));
          // Others seen only in the answers (another machine) count as one more holder at least.
          const holders = others.size + (this.#fleet?.active ? 1 : 0);
          const share = Math.floor((unreserved - reserve) / (2 * holders + 1));
          // The first block what is wanted, then each twice the last; while the quota is plentiful, a
          // full one as soon as more than one request wants a slot (the second block, or the first after
          // a probe that others waited on): a bulk run then goes to the file once per maxBlock requests,
          // not ten times on the way there (each operation a lock, a read and a rename that hold up the
          // event loop for about a millisecond; issue #18), and a single request still reserves one slot.
          const next = (this.#lastBlock > 0 || wanted > 1) && this.#plentiful(q, reserve, now) ? this.#maxBlock : 2 * this.#lastBlock;
          k = Math.max(1, Math.min(this.#maxBlock, share, Math.max(wanted, next), unreserved));
          this.#lastBlock = k;
        }
        this.#free += k;
        this.#blockWindow = q.resetAt;
        addFree(k);
        granted = k;
      }
    }
    this.#usableUntil = now + this.#holdMs;
    this.#written = n;
    this.#openLane(now);
    return granted;
  }

  /** Keeps one timer for the next housekeeping operation: publish after flushMs, give back lapsed or void slots. */
  #schedule(): void {
    if (!this.#batch || this.#closed) {
      this.#cancelTimer();
      return;
    }
    let at = Number.POSITIVE_INFINITY;
    if (this.#dirty) at = this.#lastSync + this.#flushMs;
    if (this.#free > 0 || this.#probeFree) at = Math.min(at, this.#usableUntil, this.#blockWindow > 0 ? this.#blockWindow + this.marginMs : at);
    if (at === Number.POSITIVE_INFINITY) {
      this.#cancelTimer();
      return;
    }
    if (this.#timer && this.#timer.at <= at) return;
    this.#cancelTimer();
    const stop = new AbortController();
    this.#timer = { at, stop };
    this.#clock.sleep(Math.max(0, at - this.#clock.now()), stop.signal).then(
      () => {
        if (this.#timer?.stop === stop) this.#timer = undefined;
        if (!this.#closed) this.#background();
      },
      () => {},
    );
  }

  #cancelTimer(): void {
    this.#timer?.stop.abort(STOPPED);
    this.#timer = undefined;
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    this.#woken = undefined;
    this.#wakes++;
    wake?.();
  }

  /** Sleeps up to `ms`, or less when a permit of this limiter settles. */
  async #pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
    this.#woken ??= new Promise<void>((resolve) => (this.#wake = resolve));
    const woken = this.#woken;
    const stop = new AbortController();
    const both = signal ? AbortSignal.any([signal, stop.signal]) : stop.signal;
    try {
      await Promise.race([sleep(this.#clock, ms, both), woken]);
    } catch (error) {
      if (signal?.aborted) throw new InterruptedError();
      if (!stop.signal.aborted) throw error;
    } finally {
      stop.abort(STOPPED);
    }
  }
}

/** Waits for `p` unless the signal aborts first (InterruptedError); `p` itself carries on. */
async function abortable(p: Promise<unknown>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) {
    await p;
    return;
  }
  if (signal.aborted) throw new InterruptedError();
  let onAbort: (() => void) | undefined;
  try {
    await Promise.race([
      p,
      new Promise<never>((_, reject) => {
        onAbort = () => reject(new InterruptedError());
        signal.addEventListener('abort', onAbort, { once: true });
      }),
    ]);
  } finally {
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}
