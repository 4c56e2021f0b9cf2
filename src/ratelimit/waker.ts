// The limiter's sleeps and timer: waiters that a settled permit wakes (no polling within one process).

import { InterruptedError } from '../errors/errors.js';
import { type Clock, sleep } from '../time/clock.js';

/** Why the limiter's own sleeps end early (a reason given, so abort() makes no DOMException). */
const STOPPED = new Error('the limiter stopped its own wait');

export class Waker {
  #wake: (() => void) | undefined;
  #woken: Promise<void> | undefined;
  /** Wake-ups so far: a waiter notices one that came before it started to sleep. */
  count = 0;

  notify(): void {
    this.count++;
    this.#wake?.();
    this.#wake = undefined;
    this.#woken = undefined;
  }

  async pause(clock: Clock, ms: number, signal: AbortSignal | undefined): Promise<void> {
    this.#woken ??= new Promise<void>((resolve) => (this.#wake = resolve));
    const stop = new AbortController();
    try {
      // sleep() turns the caller's abort into InterruptedError; `stop` ends it once this wait is over.
      await Promise.race([sleep(clock, ms, signal ? AbortSignal.any([signal, stop.signal]) : stop.signal), this.#woken]);
    } finally {
      stop.abort(STOPPED);
    }
  }
}

/** Waits for `p` unless the signal aborts first (InterruptedError); `p` itself carries on. */
export async function abortable(p: Promise<unknown>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return void (await p);
  if (signal.aborted) throw new InterruptedError();
  let onAbort: (() => void) | undefined;
  try {
    await Promise.race([
      p,
      new Promise<never>((_, reject) => signal.addEventListener('abort', (onAbort = () => reject(new InterruptedError())), { once: true })),
    ]);
  } finally {
    signal.removeEventListener('abort', onAbort!);
  }
}

/** One timer: set() keeps the earlier of the instant already set and the one asked for; `ring` runs when it is due. */
export class Alarm {
  #timer: { at: number; stop: AbortController } | undefined;

  constructor(
    readonly clock: Clock,
    readonly ring: () => void,
  ) {}

  get pending(): boolean {
    return this.#timer !== undefined;
  }

  set(at: number): void {
    if (this.#timer && this.#timer.at <= at && at !== Number.POSITIVE_INFINITY) return;
    this.cancel();
    if (at === Number.POSITIVE_INFINITY) return;
    const stop = new AbortController();
    this.#timer = { at, stop };
    this.clock.sleep(Math.max(0, at - this.clock.now()), stop.signal).then(
      () => {
        if (this.#timer?.stop === stop) this.#timer = undefined;
        this.ring();
      },
      () => {},
    );
  }

  cancel(): void {
    this.#timer?.stop.abort(STOPPED);
    this.#timer = undefined;
  }
}

/** One operation at a time: a caller arriving during one gets the next, which starts after it and serves all who asked. */
export class Serial {
  running: Promise<void> | undefined;
  #queued: Promise<void> | undefined;

  constructor(readonly operation: () => Promise<void>) {}

  run(): Promise<void> {
    if (this.running) {
      const after = () => {
        this.#queued = undefined;
        return this.run();
      };
      this.#queued ??= this.running.then(after, after);
      return this.#queued;
    }
    this.running = this.operation().finally(() => (this.running = undefined));
    return this.running;
  }
}
