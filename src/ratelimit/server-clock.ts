// The margin the limiter waits after a reset instant, from how far behind ours the server's Date headers prove
// its clock to be (docs/rate-limits.md, "The margin after a reset").

import { parseHttpDate } from '../wire/http-date.js';

/** The margin while no answer has carried a usable Date header. */
export const FALLBACK_MARGIN_MS = 250;

/** An offset this far from ours is a broken Date header, not a clock. */
const MAX_OFFSET_MS = 24 * 3600 * 1000;

export class ServerClock {
  /** Proven: #low ≤ server clock − our clock ≤ #high. */
  #low = Number.NEGATIVE_INFINITY;
  #high = Number.POSITIVE_INFINITY;
  /** The last Date header and its instant: a server's Date changes once a second, not once an answer. */
  #last: { date: string; at: number | undefined } | undefined;

  /** Its Date D was read between sentAt and receivedAt: D - receivedAt <= offset < D + 1 s - sentAt. */
  observe(date: string | undefined, sentAt: number, receivedAt: number): void {
    if (date === undefined || !(receivedAt >= sentAt)) return;
    if (this.#last?.date !== date) this.#last = { date, at: parseHttpDate(date, receivedAt) };
    const d = this.#last.at;
    if (d === undefined) return;
    const low = d - receivedAt;
    const high = d + 1000 - sentAt;
    if (Math.abs(low) > MAX_OFFSET_MS) return;
    // Bounds that contradict the earlier ones: a clock was set. Start again from this answer.
    const restart = low > this.#high || high < this.#low;
    this.#low = restart ? low : Math.max(this.#low, low);
    this.#high = restart ? high : Math.min(this.#high, high);
  }

  /** How long after a reset instant a request may leave to arrive in the new window: at most the fallback unless proven more. */
  get marginMs(): number {
    if (this.#low === Number.NEGATIVE_INFINITY) return FALLBACK_MARGIN_MS;
    const proven = Math.max(0, Math.ceil(-this.#low));
    return this.#high >= -FALLBACK_MARGIN_MS ? Math.min(proven, FALLBACK_MARGIN_MS) : proven;
  }
}
