// What the rate limiter (limiter.ts) is given and what it hands out.

import type { Clock } from '../time/clock.js';
import type { LimitWindow } from './fleet.js';
import type { Decision, RateStateStore } from './key-state.js';
import type { Quota } from './quota.js';

export interface LimiterOptions {
  clock: Clock;
  key: string;
  store?: RateStateStore;
  /** Added to reset instants. Default: what the server's Date headers prove of its clock (server-clock.ts). */
  marginMs?: number;
  /** How often to look again while other requests are in flight. Default 50 ms. */
  pollMs?: number;
  /** How long a reservation holds if its request never settles (process killed). Default 60 s. */
  leaseMs?: number;
  /** Reserve slots in blocks (at most maxBlock, default 64) usable for holdMs (2 s), publish answers every flushMs (100 ms). */
  batch?: boolean | { maxBlock?: number; flushMs?: number; holdMs?: number };
  debug?: (line: string) => void;
  /** Whether a process of this host runs (the slots of one that does not are freed). */
  processAlive?: (pid: number) => boolean;
  /** Learn the pace of users of the key on other machines and keep a margin for them (fleet.ts). On by default. */
  fleet?: boolean;
  /** True while a budget shared by the fleet (--limiter) counts every request: nothing is kept back for others. */
  othersCounted?: () => boolean;
}

export interface WaitInfo {
  reason: 'gate' | 'quota';
  ms: number;
  until: number;
  /** The stored quota, with `remaining` less the slots already reserved. */
  quota: Quota | undefined;
  window?: LimitWindow | undefined;
  /** Requests kept for other users of the key (separate machines), when that is why it waits. */
  kept?: number | undefined;
  /** The others have probably used this window up (an estimate): it waits for the next. */
  usedByOthers?: boolean | undefined;
}

export interface AcquireOptions {
  signal?: AbortSignal | undefined;
  /** A gate or quota wait longer than this fails with RateLimitedError (exit 6). */
  maxWaitMs?: number | undefined;
  /** Called before each wait; may return a function called when the wait ends (a spinner's stop). */
  onWait?: ((info: WaitInfo) => void | (() => void) | Promise<void | (() => void)>) | undefined;
  /** The request asks the server the quota (petstore quota): a used-up quota beyond maxWaitMs does not hold it back. */
  asksQuota?: boolean | undefined;
}

export interface SettleInfo {
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

/** A permit handed out and not settled yet; `order` counts this limiter's permits. */
export interface Out extends Permit {
  readonly issuedAt: number;
  readonly order: number;
  settled: boolean;
}

/** A store operation's decision, with the quota (less the slots reserved) and the reasons a wait's message names. */
export type Asked = { decision?: Decision } & Partial<Pick<WaitInfo, 'quota' | 'kept' | 'usedByOthers'>>;
