// Pacing for a fleet that shares a key and nothing else (separate machines), from X-RateLimit-Remaining
// alone: gaps between this process's own values are the others' requests (docs/rate-limits.md).

import type { Quota } from './quota.js';

/** A per-minute window never resets further ahead than this; a reset further away is the daily limit's. */
const SHORT_WINDOW_MAX_MS = 15 * 60_000;

/** The window whose limit binds: the short one (a minute on every plan) or the daily one. */
export type LimitWindow = 'minute' | 'day';

/** Which window a quota describes: the daily one when its reset is far, or it is larger and later than `other` seen just before. */
export function quotaWindow(q: Quota, other?: Quota): LimitWindow {
  if (q.resetAt - q.seenAt > SHORT_WINDOW_MAX_MS) return 'day';
  if (other && other.limit < q.limit && other.resetAt < q.resetAt && other.resetAt > other.seenAt && q.seenAt - other.seenAt < 120_000) return 'day';
  return 'minute';
}

/** One answer: its remaining, when it came, and its request's place in the order this process's requests left in. */
type Point = { remaining: number; at: number; order: number };

/** Learns how fast others consume the key from this process's own answers. */
export class FleetEstimator {
  #first: Point | undefined;
  #last: Point | undefined;
  /** Own counted answers in the current window, and others' requests seen in it. */
  #own = 0;
  #othersInWindow = 0;
  /** Others' requests per ms; per own request; the most between two own answers (all carry over windows and fade). */
  othersPerMs = 0;
  #perOwn = 0;
  #peakStep = 0;
  /** Whether others were ever seen; the smoothed round trip. */
  active = false;
  rttMs = 0;
  /** Own counted answers, all windows (up to 2), and whether the first showed others' requests ahead of it. */
  #counted = 0;
  #doubt = false;
  /** The latest quota of the current window, and of a different one (to tell a daily limit from the short one). */
  #current: Quota | undefined;
  #otherWindow: Quota | undefined;
  /** The short window's length: the shortest time seen between two resets of one limit (0: not yet known). */
  #period = 0;
  /** Windows skipped in a row (usedUpUntil); an answer ends the run. */
  #skips = 0;

  /** The first answer showed others ahead of it and no second one could show a gap yet: one at a time until it knows. */
  get learning(): boolean {
    return this.#counted === 1 && this.#doubt;
  }

  /** One of this process's answers: its latency, whether the server counted it (not a 429 or a ban), its request's place, and those still out. */
  observe(q: Quota, latencyMs: number | undefined, counted = true, order = q.seenAt, outstanding: Iterable<number> = []): void {
    if (latencyMs !== undefined && Number.isFinite(latencyMs) && latencyMs >= 0) {
      this.rttMs = this.rttMs === 0 ? latencyMs : this.rttMs + (latencyMs - this.rttMs) * 0.3;
    }
    this.#skips = 0;
    const cur = this.#current;
    if (counted && this.#counted < 2 && (this.#first === undefined || q.resetAt === cur?.resetAt)) {
      this.#counted++;
      if (this.#counted === 1) this.#doubt = q.limit - q.remaining - 1 > 0;
    }
    if (q.resetAt !== cur?.resetAt || q.limit !== cur.limit) {
      // An answer of an earlier window arriving late is not news.
      if (this.#first !== undefined && cur && q.resetAt < cur.resetAt && q.limit === cur.limit) return;
      this.#newWindow(q);
      // Requests counted ahead of the first answer of a window say nothing (it may have opened long ago).
      if (counted) this.#start(q, order);
      return;
    }
    this.#current = q;
    if (!counted) return;
    if (this.#first === undefined) this.#start(q, order);
    else this.#measure(q, order, outstanding);
  }

  #newWindow(q: Quota): void {
    const old = this.#current;
    if (old) this.#otherWindow = old;
    const gap = old ? q.resetAt - old.resetAt : 0;
    if (q.limit === old?.limit && gap > 0 && gap <= SHORT_WINDOW_MAX_MS && (this.#period === 0 || gap < this.#period)) this.#period = gap;
    // A window in which this process saw no one else: the others' pace fades.
    if (this.#own >= 2 && this.#othersInWindow === 0) {
      this.othersPerMs *= 0.5;
      this.#perOwn *= 0.5;
      this.#peakStep = Math.floor(this.#peakStep / 2);
    }
    this.#first = undefined;
    this.#last = undefined;
    this.#own = 0;
    this.#othersInWindow = 0;
    this.#current = q;
  }

  #start(q: Quota, order: number): void {
    this.#first = { remaining: q.remaining, at: q.seenAt, order };
    this.#last = this.#first;
    this.#own = 1;
  }

  /** Another own answer of the window: the gaps between the highest and lowest remaining seen are the others'. */
  #measure(q: Quota, order: number, outstanding: Iterable<number>): void {
    this.#own++;
    const first = this.#first!;
    if (q.remaining > first.remaining) this.#first = { remaining: q.remaining, at: Math.min(first.at, q.seenAt), order };
    if (q.remaining < this.#last!.remaining) this.#last = { remaining: q.remaining, at: q.seenAt, order };
    const f = this.#first!;
    const l = this.#last!;
    let ahead = 0;
    for (const o of outstanding) if (o < l.order) ahead++;
    const others = Math.max(0, f.remaining - l.remaining + 1 - this.#own - ahead);
    if (others - this.#othersInWindow > this.#peakStep) this.#peakStep = others - this.#othersInWindow;
    this.#othersInWindow = others;
    if (others > 0) this.active = true;
    const span = l.at - f.at;
    this.#perOwn = others > 0 ? Math.max(others / (this.#own - 1), this.#perOwn * 0.5) : this.#perOwn;
    // A rate over a span shorter than a round trip would be noise.
    if (span > 0 && (others > 0 || span >= 2 * Math.max(this.rttMs, 1))) {
      const rate = others / Math.max(span, this.rttMs, 1);
      // Never below what this window has shown so far, and falling only as the window goes on quietly.
      this.othersPerMs = others > 0 ? Math.max(rate, this.othersPerMs * 0.5) : rate;
    }
  }

  /** How many of the remaining to keep for the others: what they have probably sent since the last answer, and during a round trip. */
  reserve(now: number): number {
    if (!this.active) return 0;
    const last = this.#last;
    const age = last ? Math.max(0, now - last.at) : 0;
    const expected = Math.max(this.othersPerMs * (age + Math.max(this.rttMs, 1)), this.#perOwn, this.#peakStep);
    return expected <= 0 ? 0 : Math.ceil(expected) + 1;
  }

  /** After `q`'s window: when the others have probably used up the current one, the instant it ends (not early in it, nor twice in a row). */
  usedUpUntil(q: Quota, now: number, marginMs: number): number | undefined {
    const period = this.#period;
    if (!this.active || period === 0 || this.othersPerMs <= 0 || now < q.resetAt || this.#skips >= 1 || this.window(q) !== 'minute') return undefined;
    const start = q.resetAt + Math.floor((now - q.resetAt) / period) * period;
    const rtt = Math.max(this.rttMs, 1);
    if (now - start <= marginMs + 2 * rtt || Math.ceil(this.othersPerMs * (now - start + rtt)) + 1 < q.limit) return undefined;
    this.#skips++;
    return start + period;
  }

  /** quotaWindow, with what this process has seen of the key. */
  window(q: Quota): LimitWindow {
    const other = this.#otherWindow && this.#otherWindow.resetAt !== q.resetAt ? this.#otherWindow : undefined;
    return quotaWindow(q, other);
  }
}
