// The deadlines of a transport's exchanges in flight, on one timer (issue #18). Every exchange of a
// transport has the same timeout, so their deadlines come in the order they started: the timer is set
// for the oldest, and when it fires it ends those past their deadline and is set again for the next.
// A bulk run used to set and clear a Node timer for each request (~2 % of its CPU); now an exchange
// that ends in time costs a Set insertion and deletion. The timer is cleared when none is in flight, so
// it never holds the process open.

import { timerMs } from './timeouts.js';

export interface Deadline<T> {
  readonly item: T;
  /** When it is due, on `now`'s clock. */
  readonly at: number;
  /** Ended by its deadline. */
  expired: boolean;
}

export class Deadlines<T> {
  readonly #entries = new Set<Deadline<T>>();
  #timer: ReturnType<typeof setTimeout> | undefined;

  /**
   * `ms`: every item's time from add() to its deadline. `expire` is called once for each item past it
   * (before it is taken out). `now`: a monotonic clock in milliseconds, the one the timers run on.
   */
  constructor(
    private readonly ms: number,
    private readonly expire: (item: T) => void,
    private readonly now: () => number = () => performance.now(),
  ) {}

  add(item: T): Deadline<T> {
    const entry: Deadline<T> = { item, at: this.now() + this.ms, expired: false };
    this.#entries.add(entry);
    if (this.#timer === undefined) this.#arm(this.ms);
    return entry;
  }

  delete(entry: Deadline<T>): void {
    this.#entries.delete(entry);
    if (this.#entries.size === 0 && this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
  }

  /** The items in flight, oldest first. */
  *items(): IterableIterator<T> {
    for (const entry of this.#entries) yield entry.item;
  }

  #arm(ms: number): void {
    this.#timer = setTimeout(this.#fire, timerMs(ms));
  }

  readonly #fire = (): void => {
    this.#timer = undefined;
    const now = this.now();
    for (const entry of this.#entries) {
      if (entry.at > now) {
        this.#arm(entry.at - now);
        return;
      }
      this.#entries.delete(entry);
      entry.expired = true;
      this.expire(entry.item);
    }
  };
}
