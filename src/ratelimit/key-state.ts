// The rate-limit state of one key (environment + API key) and the pure rules over it. It lives in a
// RateStateStore: in memory for one process, or in a file shared by every petstore process (rate-state.ts).

import { processAlive, thisHost } from '../fs/local-process.js';
import type { Quota } from './quota.js';

export interface KeyRateState {
  /** The latest quota the server reported for the key. */
  quota?: Quota | undefined;
  /** Epoch ms before which no request may leave (after a 429); 0 when open. */
  gateUntil: number;
  /**
   * Reserved slots: id -> epoch ms at which the reservation lapses if never settled. A limiter's ids are
   * "<holder>#<n>" for slots in flight and "<holder>~<n>" for unused slots of a block; "<holder>~<n>*<count>"
   * stands for `count` unused slots in one entry. Any other id is one slot. Count with slotCount().
   */
  leases: Record<string, number>;
}

/** Where key states live. `update` must be atomic with respect to every other user of the same state. */
export interface RateStateStore {
  /** Runs `change` exactly once on the key's current state and saves it; `saved` gets stamp() as of the save. */
  update<T>(key: string, change: (state: KeyRateState) => T, signal?: AbortSignal, saved?: (stamp: unknown) => void): Promise<T>;
  /** The key's state as last saved (no lock, may be stale). */
  get(key: string): Promise<KeyRateState | undefined>;
  /** A cheap token that differs whenever the saved state may have changed since it was last returned. */
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
 * Combines a newly seen quota with the stored one. Within one window (same reset) the lower remaining
 * wins, whatever order the answers arrive in; of two windows, the later one, or the one whose request
 * left (`sentAt`) after the other was seen (the server's windows were reset, the plan changed).
 */
export function mergeQuota(old: Quota | undefined, seen: Quota, sentAt = Number.NEGATIVE_INFINITY): Quota {
  if (!old) return seen;
  if (seen.resetAt === old.resetAt) {
    return { limit: seen.limit, remaining: Math.min(old.remaining, seen.remaining), resetAt: seen.resetAt, seenAt: Math.max(old.seenAt, seen.seenAt) };
  }
  return takesOver(old, seen, sentAt) ? seen : old;
}

function takesOver(old: Quota, seen: Quota, sentAt: number): boolean {
  return seen.resetAt > old.resetAt || sentAt > old.seenAt;
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

/** Drops reservations that lapsed, and those of holders `gone` says are dead. */
export function pruneLeases(state: KeyRateState, now: number, gone?: (holder: string) => boolean): void {
  const judged = new Map<string, boolean>();
  for (const [id, expires] of Object.entries(state.leases)) {
    const holder = leaseHolder(id);
    if (gone && !judged.has(holder)) judged.set(holder, gone(holder));
    if (expires <= now || judged.get(holder)) delete state.leases[id];
  }
}

/**
 * Whether a holder ("<pid>@<host>/<n>") is a process of this host that no longer runs: its slots are free
 * at once (a run killed with kill -9 would otherwise hold up the next one). Other hosts' holders lapse.
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

/** How many holders other than `holder` have slots in `leases`. */
export function otherHolders(leases: Record<string, number>, holder: string): number {
  return new Set(
    Object.keys(leases)
      .filter((id) => !isOwn(id, holder))
      .map(leaseHolder),
  ).size;
}

/**
 * Rewrites `holder`'s slots in the state: those in flight (their expiries), then returns `add`, which
 * writes more: spare ones ("~", a block's unused slots, one entry for all) or taken ones ("#").
 * `add` returns how many entries the holder has.
 */
export function writeSlots(s: KeyRateState, holder: string, inFlight: Iterable<number>, until: number): (count: number, mark: '#' | '~') => number {
  for (const id of Object.keys(s.leases)) if (isOwn(id, holder)) delete s.leases[id];
  let n = 0;
  const id = (mark: string) => `${holder}${mark}${(n++).toString(36)}`;
  for (const expires of inFlight) s.leases[id('#')] = expires;
  return (count, mark) => {
    if (mark === '~' && count > 1) s.leases[`${id('~')}*${count}`] = until;
    else for (let i = 0; i < count; i++) s.leases[id(mark)] = until;
    return n;
  };
}

/** Whether a lease id is one of `holder`'s slots. */
const isOwn = (id: string, holder: string) => id.startsWith(holder) && (id[holder.length] === '#' || id[holder.length] === '~');
/** An unused slot of a block (may be handed back). */
const isSpare = (id: string) => /~[0-9a-z]+(?:\*\d+)?$/.test(id);

/**
 * Whether a quota describes a window still running: until its reset plus the margin (the reset is whole
 * seconds on the server's clock), and not ended by a gate that opened at or after the reset.
 */
export function windowCurrent(q: Quota | undefined, gateUntil: number, now: number, marginMs: number): q is Quota {
  if (!q) return false;
  const gateEndedWindow = gateUntil > 0 && gateUntil >= q.resetAt && now >= gateUntil;
  return now < q.resetAt + marginMs && !gateEndedWindow;
}

/**
 * Whether a request may leave now (`state` pruned first). It may when the gate is open and the window's
 * remaining is more than the slots reserved (plus `reserve`, kept for users of the key on other machines,
 * fleet.ts); with no current quota, only alone, as a probe. `self`'s own unused slots are no reason to poll.
 */
export function decide(state: KeyRateState, now: number, marginMs: number, self?: string, reserve = 0): Decision {
  if (state.gateUntil > now) return { kind: 'wait', reason: 'gate', until: state.gateUntil };
  const inFlight = slotCount(state.leases);
  const q = state.quota;
  if (!windowCurrent(q, state.gateUntil, now, marginMs)) return inFlight === 0 ? { kind: 'go', probe: true } : { kind: 'poll' };
  if (q.remaining - inFlight - reserve > 0) return { kind: 'go', probe: false };
  const reset: Decision = { kind: 'wait', reason: 'quota', until: q.resetAt + marginMs };
  if (reserve > 0 && q.remaining - inFlight > 0) return reset;
  // Part of what is counted is another process's unused block, which comes back: look again shortly.
  const othersSpare = Object.keys(state.leases).some((id) => isSpare(id) && !(self !== undefined && isOwn(id, self)));
  return q.remaining > 0 && othersSpare ? { kind: 'poll' } : reset;
}
