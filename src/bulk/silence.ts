// A server that accepts requests and never answers (a stuck load balancer, a paused container) would
// cost a seeding run its timeout per record: a few requests in a row without an answer stop it.
import { NetworkError } from '../errors/errors.js';
import { isOutcomeUnknown } from '../http/outcome.js';
import type { Clock } from '../time/clock.js';
import { closedUnanswered, TransportError } from '../transport/errors.js';

/** A request that got no byte of an answer: it timed out, or its connection closed before the response began. */
export function noAnswer(error: unknown): boolean {
  const e = isOutcomeUnknown(error) ? error.cause : error;
  return e instanceof TransportError && (e.timedOut || closedUnanswered(e));
}

/** Counts requests in a row that ended unanswered; any answer restarts it, so a slow or lossy server never reaches the limit. */
export class SilenceWatch {
  #lastAnswer = Number.NEGATIVE_INFINITY;
  #streak = 0;

  constructor(
    private readonly clock: Clock,
    /** Called once, when `limit` requests in a row went unanswered. */
    private readonly onSilent: () => void,
    private readonly limit = 3,
  ) {}

  answered(): void {
    this.#lastAnswer = this.clock.now();
    this.#streak = 0;
  }

  /** A request that left at `sentAt` ended with no answer (a request sent before the last answer proves nothing). */
  unanswered(sentAt: number): void {
    if (sentAt < this.#lastAnswer) return;
    if (++this.#streak === this.limit) this.onSilent();
  }

  /** The error that ends a run stopped by silence, naming the server; undefined while it answers. */
  error(baseUrl: string): NetworkError | undefined {
    if (this.#streak < this.limit) return undefined;
    const what = `${this.#streak} requests in a row timed out or closed before any response`;
    return new NetworkError(`no answer from ${new URL(baseUrl).host}: ${what}; the records in flight are unknown, the others were not sent`, {
      code: 'no_answer',
    });
  }
}
