// How far the server's clock is from ours, as its Date headers prove: the margin the limiter waits after a
// reset instant (X-RateLimit-Reset is whole seconds on the server's clock). An answer's Date D was read
// between our sending (sentAt) and receiving (receivedAt) it, so D - receivedAt <= offset < D + 1 s - sentAt;
// the margin is -(the best lower bound). Until the bounds show the server's clock further behind ours than
// FALLBACK_MARGIN_MS, the margin is at most that; it is never negative.

import { parseHttpDate } from '../wire/http-date.js';

/** The margin while no answer has carried a usable Date header. */
export const FALLBACK_MARGIN_MS = 250;

/** An offset bound this far from ours is not believed (a broken Date header, not a clock). */
const MAX_OFFSET_MS = 24 * 3600 * 1000;

export class ServerClock {
  /** Proven: #low ≤ server clock − our clock ≤ #high (ms). */
  #low = Number.NEGATIVE_INFINITY;
  #high = Number.POSITIVE_INFINITY;

  /** Takes in one answer's Date header and when (our clock) its request left and its answer arrived. */
  observe(date: string | undefined, sentAt: number, receivedAt: number): void {
    if (date === undefined || !(receivedAt >= sentAt)) return;
    const d = parseHttpDate(date, receivedAt);
    if (d === undefined) return;
    const low = d - receivedAt;
    const high = d + 1000 - sentAt;
    if (Math.abs(low) > MAX_OFFSET_MS) return;
    if (low > this.#high || high < this.#low) {
      // Bounds that contradict the earlier ones: a clock was set. Start again from this answer.
      this.#low = low;
      this.#high = high;
      return;
    }
    if (low > this.#low) this.#low = low;
    if (high < this.#high) this.#high = high;
  }

  /** How long after a reset instant (by our clock) a request may leave so that it arrives in the new window. */
  get marginMs(): number {
    if (this.#low === Number.NEGATIVE_INFINITY) return FALLBACK_MARGIN_MS;
    const proven = Math.max(0, Math.ceil(-this.#low));
    return this.#high >= -FALLBACK_MARGIN_MS ? Math.min(proven, FALLBACK_MARGIN_MS) : proven;
  }
}
