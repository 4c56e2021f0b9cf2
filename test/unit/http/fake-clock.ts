import type { Clock } from '../../../src/time/clock.js';

interface Timer {
  at: number;
  seq: number;
  resolve: () => void;
}

/**
 * A virtual clock that jumps: whenever every pending promise has settled, time
 * moves to the earliest pending sleep and wakes it. Concurrent actors (requests
 * in flight, waiters) interleave exactly as their virtual times say, and no
 * test waits in real time. All sleeps are recorded.
 */
export class FakeClock implements Clock {
  #now: number;
  #seq = 0;
  #timers: Timer[] = [];
  #scheduled = false;
  /** Every sleep requested: when and for how long. */
  readonly sleeps: Array<{ at: number; ms: number }> = [];

  constructor(start = Date.UTC(2030, 0, 1, 12, 0, 0)) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  /** Moves time forward without waking anyone (simulates time spent elsewhere). */
  advance(ms: number): void {
    this.#now += ms;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.sleeps.push({ at: this.#now, ms });
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const timer: Timer = {
        at: this.#now + Math.max(0, ms),
        seq: this.#seq++,
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        this.#timers = this.#timers.filter((t) => t !== timer);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#timers.push(timer);
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      this.#timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = this.#timers.shift();
      if (!next) return;
      this.#now = Math.max(this.#now, next.at);
      next.resolve();
      if (this.#timers.length > 0) this.#schedule();
    });
  }
}

/** A clock whose sleeps return at once after moving time forward (sequential flows). */
export function instantClock(start = Date.UTC(2030, 0, 1, 12, 0, 0)): Clock & { sleeps: number[] } {
  let now = start;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => now,
    async sleep(ms, signal) {
      if (signal?.aborted) throw signal.reason;
      sleeps.push(ms);
      now += Math.max(0, ms);
    },
  };
}
