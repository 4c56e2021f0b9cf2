// The seeding line's ETA: the records left at the send rate, plus the rate-limit windows they still
// need (the current window's reset, then one window per `limit` records), or, when the daily limit
// binds, when the run resumes.
import { quotaWindow } from '../ratelimit/fleet.js';
import type { Quota } from '../ratelimit/quota.js';

/** ms left, when a binding daily limit lets the run resume, or unknown (the window's length not learnt yet). */
export type Eta = { ms: number } | { resumesAt: number } | undefined;

/** The length of the limit's window, from the resets the answers announce: the smallest step between two (consecutive windows). */
export class WindowLength {
  #resetAt: number | undefined;
  ms: number | undefined;

  observe(q: Quota | undefined): void {
    if (!q || q.resetAt === this.#resetAt) return;
    if (this.#resetAt !== undefined && q.resetAt > this.#resetAt) this.ms = Math.min(this.ms ?? Number.POSITIVE_INFINITY, q.resetAt - this.#resetAt);
    this.#resetAt = q.resetAt;
  }
}

/** `perSecond`: the rate while sending (waits left out). */
export function estimate(left: number, q: Quota | undefined, now: number, perSecond: number, windowMs: number | undefined): Eta {
  const send = (n: number) => (perSecond > 0 ? (n / perSecond) * 1000 : Number.NaN);
  const fresh = q !== undefined && q.resetAt <= now;
  const available = !q ? left : fresh ? q.limit : q.remaining;
  if (left <= available || !q) return { ms: send(left) };
  if (quotaWindow(q) === 'day') return fresh ? undefined : { resumesAt: q.resetAt };
  if (windowMs === undefined || q.limit === 0) return undefined;
  // After this window: full windows of `limit` records, then the last few.
  const windows = Math.ceil((left - available) / q.limit);
  const first = Math.max(fresh ? windowMs : q.resetAt - now, send(available));
  return { ms: first + (windows - 1) * Math.max(windowMs, send(q.limit)) + send(left - available - (windows - 1) * q.limit) };
}
