// The rate-limit state of one key (environment + API key) and the pure rules over it, kept in a
// RateStateStore: in memory, or in a file shared by every petstore process (rate-state.ts).

import { processAlive, thisHost } from '../fs/local-process.js';
import type { Quota } from './quota.js';

export interface KeyRateState {
  quota?: Quota | undefined;
  /** Epoch ms before which no request may leave (after a 429); 0 when open. */
  gateUntil: number;
  /**
   * Reserved slots: id -> epoch ms at which it lapses. "<holder>#<n>": in flight; "<holder>~<n>": an unused slot of
   * a block, "<holder>~<n>*<count>" `count` of them. Any other id is one slot.
   */
  leases: Record<string, number>;
}

/** Where key states live. `update` runs `change` exactly once, atomically; `saved` gets stamp() as of the save. */
export interface RateStateStore {
  update<T>(key: string, change: (state: KeyRateState) => T, saved?: (stamp: unknown) => void): Promise<T>;
  get(key: string): Promise<KeyRateState | undefined>;
  /** A cheap token that differs whenever the saved state may have changed. */
  stamp?(): unknown;
}

export function emptyState(): KeyRateState {
  return { gateUntil: 0, leases: {} };
}

export class MemoryRateStateStore implements RateStateStore {
  readonly #states = new Map<string, KeyRateState>();
  #generation = 0;

  async update<T>(key: string, change: (state: KeyRateState) => T, saved?: (stamp: unknown) => void): Promise<T> {
    const s = this.#states.get(key) ?? emptyState();
    this.#states.set(key, s);
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

/** In one window the lower remaining wins; of two, the later, or the one whose request left after the other was seen (a reset). */
export function mergeQuota(old: Quota | undefined, seen: Quota, sentAt = Number.NEGATIVE_INFINITY): Quota {
  if (!old) return seen;
  if (seen.resetAt === old.resetAt) {
    return { limit: seen.limit, remaining: Math.min(old.remaining, seen.remaining), resetAt: seen.resetAt, seenAt: Math.max(old.seenAt, seen.seenAt) };
  }
  return seen.resetAt > old.resetAt || sentAt > old.seenAt ? seen : old;
}

export type Decision =
  | { kind: 'go'; probe: boolean }
  | { kind: 'wait'; reason: 'gate' | 'quota'; until: number }
  /** Other requests in flight (or reserved and maybe handed back) decide; look again shortly. */
  | { kind: 'poll' };

/** A slot id's holder (the process id of an id of another form), whether it is unused ("~"), and how many slots it stands for. */
function lease(id: string): { holder: string; spare: boolean; count: number } {
  const m = /^(.+)([#~])[0-9a-z]+(?:\*(\d+))?$/.exec(id);
  if (!m) return { holder: id.split('.')[0] ?? id, spare: false, count: 1 };
  const count = Number(m[3]);
  return { holder: m[1]!, spare: m[2] === '~', count: Number.isSafeInteger(count) && count > 0 ? count : 1 };
}

export function slotCount(leases: Record<string, number>): number {
  let n = 0;
  for (const id in leases) n += lease(id).count;
  return n;
}

/** Drops reservations that lapsed, and those of holders `gone` says are dead. */
export function pruneLeases(state: KeyRateState, now: number, gone?: (holder: string) => boolean): void {
  const judged = new Map<string, boolean>();
  for (const [id, expires] of Object.entries(state.leases)) {
    const { holder } = lease(id);
    if (gone && !judged.has(holder)) judged.set(holder, gone(holder));
    if (expires <= now || judged.get(holder)) delete state.leases[id];
  }
}

/** Whether a holder ("<pid>@<host>/<n>") is a process of this host that no longer runs: its slots are free at once. */
export function deadHolder(alive: (pid: number) => boolean = processAlive): (holder: string) => boolean {
  return (holder) => {
    const m = /^(\d+)@(.+)\/[0-9a-z]+$/.exec(holder);
    return m !== null && m[2] === thisHost && Number(m[1]) !== process.pid && !alive(Number(m[1]));
  };
}

export function otherHolders(leases: Record<string, number>, holder: string): number {
  const holders = new Set(Object.keys(leases).map((id) => lease(id).holder));
  holders.delete(holder);
  return holders.size;
}

/** Rewrites `holder`'s slots in flight; `add` writes more (unused "~", in one entry, or taken "#") and returns the holder's entries. */
export function writeSlots(s: KeyRateState, holder: string, inFlight: Iterable<number>, until: number): (count: number, mark: '#' | '~') => number {
  for (const id of Object.keys(s.leases)) if (lease(id).holder === holder) delete s.leases[id];
  let n = 0;
  const id = (mark: string) => `${holder}${mark}${(n++).toString(36)}`;
  for (const expires of inFlight) s.leases[id('#')] = expires;
  return (count, mark) => {
    if (mark === '~' && count > 1) s.leases[`${id('~')}*${count}`] = until;
    else for (let i = 0; i < count; i++) s.leases[id(mark)] = until;
    return n;
  };
}

/** Whether a quota's window still runs: until its reset plus the margin, unless a gate ended it (opened at or after the reset). */
export function windowCurrent(q: Quota | undefined, gateUntil: number, now: number, marginMs: number): q is Quota {
  if (!q) return false;
  return now < q.resetAt + marginMs && !(gateUntil > 0 && gateUntil >= q.resetAt && now >= gateUntil);
}

/** Whether a request may leave now: gate open and remaining above the slots reserved plus `reserve`; with no quota, alone (a probe). */
export function decide(state: KeyRateState, now: number, marginMs: number, self?: string, reserve = 0): Decision {
  if (state.gateUntil > now) return { kind: 'wait', reason: 'gate', until: state.gateUntil };
  const inFlight = slotCount(state.leases);
  const q = state.quota;
  if (!windowCurrent(q, state.gateUntil, now, marginMs)) return inFlight === 0 ? { kind: 'go', probe: true } : { kind: 'poll' };
  if (q.remaining - inFlight - reserve > 0) return { kind: 'go', probe: false };
  const reset: Decision = { kind: 'wait', reason: 'quota', until: q.resetAt + marginMs };
  if (reserve > 0 && q.remaining - inFlight > 0) return reset;
  // Part of what is counted is another process's unused block, which comes back: look again shortly.
  const othersSpare = Object.keys(state.leases).some((id) => {
    const l = lease(id);
    return l.spare && l.holder !== self;
  });
  return q.remaining > 0 && othersSpare ? { kind: 'poll' } : reset;
}

/** What a limiter has learnt from its answers and not yet published to the store. */
export class Unpublished {
  quota: Quota | undefined;
  /** When the latest request whose answer is in `quota`'s window left (mergeQuota's `sentAt`). */
  #sentAt = Number.NEGATIVE_INFINITY;
  gate = 0;

  add(q: Quota, sentAt: number): void {
    const merged = mergeQuota(this.quota, q, sentAt);
    if (merged === q) this.#sentAt = sentAt;
    else if (merged.resetAt === q.resetAt) this.#sentAt = Math.max(this.#sentAt, sentAt);
    this.quota = merged;
  }

  publish(s: KeyRateState): void {
    if (this.quota) s.quota = mergeQuota(s.quota, this.quota, this.#sentAt);
    if (this.gate > s.gateUntil) s.gateUntil = this.gate;
    this.quota = undefined;
    this.#sentAt = Number.NEGATIVE_INFINITY;
    this.gate = 0;
  }
}
