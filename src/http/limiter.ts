// The per-key rate-limit gate every request passes before it leaves.
//
// State of one key (environment + API key), kept in a RateStateStore: in memory
// for one process, or in a file shared by every petstore process (src/state/rate-state.ts):
//   quota      the latest X-RateLimit-* seen (limit, remaining, reset)
//   gateUntil  after a 429, no request leaves before this instant
//   leases     requests in flight (reserved slots), each with an expiry so a crashed process's slots free up
//
// A request may leave when
//   - the gate is open, and
//   - the quota is known and current (its window has not ended) and remaining > requests in flight, or
//   - the quota is unknown or its window has ended and no other request is in flight: it goes alone, as a
//     probe, and its headers tell the others how many may follow.
// When remaining is used up it waits for the reset instant (+ a safety margin) instead of provoking a 429.
// "Remaining > in flight" is what keeps many concurrent requests (bulk seeding, parallel processes) from
// collectively overshooting: the server never sees more requests than it said it would accept, so no
// request is refused while another is still on its way (which the server could treat as an early retry).

import { InterruptedError } from '../errors/errors.js';
import type { Clock } from '../time/clock.js';
import { rateLimitGiveUp } from './outcome.js';
import type { Quota } from './quota.js';

export interface KeyRateState {
  /** The latest quota the server reported for the key. */
  quota?: Quota | undefined;
  /** Epoch ms before which no request may leave (after a 429); 0 when open. */
  gateUntil: number;
  /** Requests in flight: id -> epoch ms at which the reservation lapses if never settled. */
  leases: Record<string, number>;
}

/** Where key states live. `update` must be atomic with respect to every other user of the same state. */
export interface RateStateStore {
  /** Runs `change` on the key's current state and saves what it changed; returns its result. */
  update<T>(key: string, change: (state: KeyRateState) => T, signal?: AbortSignal): Promise<T>;
  /** The key's state as last saved (no lock, may be stale). */
  get(key: string): Promise<KeyRateState | undefined>;
}

export function emptyState(): KeyRateState {
  return { gateUntil: 0, leases: {} };
}

/** Keeps state in this process only. */
export class MemoryRateStateStore implements RateStateStore {
  readonly #states = new Map<string, KeyRateState>();

  async update<T>(key: string, change: (state: KeyRateState) => T): Promise<T> {
    let s = this.#states.get(key);
    if (!s) {
      s = emptyState();
      this.#states.set(key, s);
    }
    return change(s);
  }

  async get(key: string): Promise<KeyRateState | undefined> {
    const s = this.#states.get(key);
    return s && structuredClone(s);
  }
}

/**
 * Combines a newly seen quota with the stored one. Within one window (same
 * reset) remaining only goes down, so the lower value wins whatever order the
 * responses arrive in; a different window takes whichever was seen last.
 */
export function mergeQuota(old: Quota | undefined, seen: Quota): Quota {
  if (!old) return seen;
  if (seen.resetAt === old.resetAt) {
    return { limit: seen.limit, remaining: Math.min(old.remaining, seen.remaining), resetAt: seen.resetAt, seenAt: Math.max(old.seenAt, seen.seenAt) };
  }
  return seen.seenAt >= old.seenAt ? seen : old;
}

export type Decision =
  | { kind: 'go'; probe: boolean }
  | { kind: 'wait'; reason: 'gate' | 'quota'; until: number }
  /** Other requests are in flight and their answers decide; look again shortly. */
  | { kind: 'poll' };

/** Drops reservations whose owner never came back. */
export function pruneLeases(state: KeyRateState, now: number): void {
  for (const [id, expires] of Object.entries(state.leases)) if (expires <= now) delete state.leases[id];
}

/** Whether a request may leave now (pure; `state` should be pruned first). */
export function decide(state: KeyRateState, now: number, marginMs: number): Decision {
  if (state.gateUntil > now) return { kind: 'wait', reason: 'gate', until: state.gateUntil };
  const inFlight = Object.keys(state.leases).length;
  const q = state.quota;
  // X-RateLimit-Reset is whole seconds and the server's clock may differ from ours: a window
  // counts as current until its reset plus the margin.
  // A gate that opens at or after the window's reset ends that window: the server's
  // Retry-After is the more precise word on when it resets.
  const gateEndedWindow = q !== undefined && state.gateUntil > 0 && state.gateUntil >= q.resetAt && now >= state.gateUntil;
  if (q && now < q.resetAt + marginMs && !gateEndedWindow) {
    if (q.remaining - inFlight > 0) return { kind: 'go', probe: false };
    return { kind: 'wait', reason: 'quota', until: q.resetAt + marginMs };
  }
  if (inFlight === 0) return { kind: 'go', probe: true };
  return { kind: 'poll' };
}

export interface LimiterOptions {
  clock: Clock;
  /** The state key: "<env>:<hash of the API key>". */
  key: string;
  store?: RateStateStore;
  /** Added to reset instants and HTTP-date gates (whole seconds, other clock). Default 250 ms. */
  marginMs?: number;
  /** How often to look again while other requests are in flight. Default 50 ms. */
  pollMs?: number;
  /** How long a reservation holds if its request never settles (process killed). Default 60 s. */
  leaseMs?: number;
}

export interface WaitInfo {
  reason: 'gate' | 'quota';
  /** How long this wait lasts. */
  ms: number;
  /** Epoch ms at which it ends. */
  until: number;
  /** The stored quota, with `remaining` less the requests already in flight. */
  quota: Quota | undefined;
}

/** Called before each wait; may return a function called when the wait ends (a spinner's stop). */
export type OnWait = (info: WaitInfo) => void | (() => void) | Promise<void | (() => void)>;

export interface AcquireOptions {
  signal?: AbortSignal | undefined;
  /** A gate or quota wait longer than this fails with RateLimitedError (exit 6). Default: no limit. */
  maxWaitMs?: number | undefined;
  onWait?: OnWait | undefined;
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
  settle(info?: SettleInfo): Promise<void>;
}

let leaseCounter = 0;

export class RateLimiter {
  readonly key: string;
  readonly #clock: Clock;
  readonly #store: RateStateStore;
  readonly #marginMs: number;
  readonly #pollMs: number;
  readonly #leaseMs: number;
  /** Woken whenever a permit of this limiter settles, so in-process waiters need not poll. */
  #wake: (() => void) | undefined;
  #woken: Promise<void> | undefined;

  constructor(opts: LimiterOptions) {
    this.key = opts.key;
    this.#clock = opts.clock;
    this.#store = opts.store ?? new MemoryRateStateStore();
    this.#marginMs = opts.marginMs ?? 250;
    this.#pollMs = opts.pollMs ?? 50;
    this.#leaseMs = opts.leaseMs ?? 60_000;
  }

  get marginMs(): number {
    return this.#marginMs;
  }

  /** The stored state (for messages and `petstore quota --cached`). */
  state(): Promise<KeyRateState | undefined> {
    return this.#store.get(this.key);
  }

  /** Waits until a request may leave and reserves a slot for it. */
  async acquire(opts: AcquireOptions = {}): Promise<Permit> {
    const { signal } = opts;
    const maxWaitMs = opts.maxWaitMs ?? Number.POSITIVE_INFINITY;
    for (;;) {
      if (signal?.aborted) throw new InterruptedError();
      const id = `${process.pid}.${++leaseCounter}.${Math.random().toString(36).slice(2, 8)}`;
      const { decision, quota } = await this.#store.update(
        this.key,
        (s) => {
          const now = this.#clock.now();
          pruneLeases(s, now);
          const decision = decide(s, now, this.#marginMs);
          if (decision.kind === 'go') s.leases[id] = now + this.#leaseMs;
          // What is left for this request: remaining less the slots already reserved.
          const inFlight = Object.keys(s.leases).length;
          return { decision, quota: s.quota && { ...s.quota, remaining: Math.max(0, s.quota.remaining - inFlight) } };
        },
        signal,
      );
      if (decision.kind === 'go') return this.#permit(id, decision.probe);
      if (decision.kind === 'poll') {
        await this.#pause(this.#pollMs, signal);
        continue;
      }
      const now = this.#clock.now();
      const ms = Math.max(0, decision.until - now);
      if (ms > maxWaitMs) {
        const resetAt = decision.reason === 'quota' && quota ? quota.resetAt : decision.until;
        throw rateLimitGiveUp(
          {
            kind: 'too_long',
            waitMs: ms,
            maxWaitMs,
            cause: decision.reason,
            ...(quota ? { remaining: quota.remaining, limit: quota.limit } : {}),
          },
          resetAt,
          now,
        );
      }
      const end = await opts.onWait?.({ reason: decision.reason, ms, until: decision.until, quota });
      try {
        await sleep(this.#clock, ms, signal);
      } finally {
        if (typeof end === 'function') end();
      }
    }
  }

  #permit(id: string, probe: boolean): Permit {
    let settled = false;
    return {
      probe,
      settle: async (info: SettleInfo = {}) => {
        if (settled) return;
        settled = true;
        try {
          await this.#store.update(this.key, (s) => {
            delete s.leases[id];
            if (info.quota) s.quota = mergeQuota(s.quota, info.quota);
            if (info.gateUntil !== undefined && info.gateUntil > s.gateUntil) s.gateUntil = info.gateUntil;
          });
        } finally {
          this.#notify();
        }
      },
    };
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    this.#woken = undefined;
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
      stop.abort();
    }
  }
}

/** clock.sleep that turns an abort into InterruptedError. */
export async function sleep(clock: Clock, ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted) throw new InterruptedError();
  try {
    await clock.sleep(ms, signal);
  } catch (error) {
    if (signal?.aborted) throw new InterruptedError();
    throw error;
  }
}
