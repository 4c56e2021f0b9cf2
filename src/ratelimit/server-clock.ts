// How far the server's clock is from ours, as its Date headers tell (issue #18): the margin the limiter
// waits after a reset instant, instead of a fixed 250 ms.
//
// X-RateLimit-Reset is an instant on the server's clock, in whole seconds. A request sent at our time T
// reaches the server when its clock reads at least T + offset (offset = server − ours). So it is in the
// new window if T ≥ reset − offset, and waiting until reset − low, where low is a proven lower bound of
// the offset, is enough: the margin is −low.
//
// Each answer bounds the offset. Its Date header D is the server's clock truncated to the second at some
// instant between our sending the request (sentAt) and receiving the answer (receivedAt), so at that
// instant the server read at least D: offset ≥ D − receivedAt. The best bound is the answer that came
// soonest after the server's clock ticked to a new second; as answers come in, one soon follows a tick
// (a burst after a reset always does: resets are whole seconds), and the margin falls to about one
// round trip. A server whose Date lags (cached) only makes the bound, and the wait, larger.
//
// The same answer bounds the offset from above (≤ D + 1 s − sentAt). Until a tick has been seen the
// bounds are a second apart, and the margin they prove could be up to a second: while they still allow
// our clock to be within FALLBACK_MARGIN_MS of the server's, that is assumed (as before issue #18), and
// the margin is at most FALLBACK_MARGIN_MS; once they show the server's clock further behind, the proven
// margin applies, however long. Without any Date header the margin is FALLBACK_MARGIN_MS. It is never
// negative: a server clock ahead of ours could let a request leave before our reading of the reset,
// which gains little and risks a 429.

import { parseHttpDate } from '../wire/http-date.js';

/** The margin while no answer has carried a usable Date header. */
export const FALLBACK_MARGIN_MS = 250;

/** An offset bound this far from ours is not believed (a broken Date header, not a clock). */
const MAX_OFFSET_MS = 24 * 3600 * 1000;

export class ServerClock {
  /** Proven: #low ≤ server clock − our clock ≤ #high (ms). */
  #low = Number.NEGATIVE_INFINITY;
  #high = Number.POSITIVE_INFINITY;
  #lastText: string | undefined;
  #lastDate: number | undefined;

  /** Takes in one answer's Date header and when (our clock) its request left and its answer arrived. */
  observe(date: string | undefined, sentAt: number, receivedAt: number): void {
    if (date === undefined || !(receivedAt >= sentAt)) return;
    // A Date header changes once a second: parsed once, not for every answer of a bulk run.
    if (date !== this.#lastText) {
      this.#lastText = date;
      this.#lastDate = parseHttpDate(date, receivedAt);
    }
    const d = this.#lastDate;
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
