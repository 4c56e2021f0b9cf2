// Sleeps the limiter's waiters can be woken from, so requests of one process need not poll each other.

import { InterruptedError } from '../errors/errors.js';
import { sleep, type Clock } from '../time/clock.js';

/** Why the limiter's own sleeps end early (a reason given, so abort() makes no DOMException). */
export const STOPPED = new Error('the limiter stopped its own wait');

export class Waker {
  #wake: (() => void) | undefined;
  #woken: Promise<void> | undefined;
  /** Wake-ups so far: a waiter notices one that came before it started to sleep. */
  count = 0;

  notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    this.#woken = undefined;
    this.count++;
    wake?.();
  }

  /** Sleeps up to `ms`, or less when notify() is called. */
  async pause(clock: Clock, ms: number, signal: AbortSignal | undefined): Promise<void> {
    this.#woken ??= new Promise<void>((resolve) => (this.#wake = resolve));
    const woken = this.#woken;
    const stop = new AbortController();
    const both = signal ? AbortSignal.any([signal, stop.signal]) : stop.signal;
    try {
      await Promise.race([sleep(clock, ms, both), woken]);
    } catch (error) {
      if (signal?.aborted) throw new InterruptedError();
      if (!stop.signal.aborted) throw error;
    } finally {
      stop.abort(STOPPED);
    }
  }
}

/** Waits for `p` unless the signal aborts first (InterruptedError); `p` itself carries on. */
export async function abortable(p: Promise<unknown>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) {
    await p;
    return;
  }
  if (signal.aborted) throw new InterruptedError();
  let onAbort: (() => void) | undefined;
  try {
    await Promise.race([
      p,
      new Promise<never>((_, reject) => {
        onAbort = () => reject(new InterruptedError());
        signal.addEventListener('abort', onAbort, { once: true });
      }),
    ]);
  } finally {
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}
