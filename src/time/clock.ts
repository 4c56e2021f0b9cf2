// Time is injected so retry and rate-limit tests run on a fake clock in milliseconds.

import { InterruptedError } from '../errors/errors.js';

export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
  /** Resolves after ms, or rejects with the signal's reason when it aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep(ms, signal) {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      const timer = setTimeout(
        () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        Math.max(0, ms),
      );
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  },
};

/** clock.sleep that turns an abort into InterruptedError. */
export async function sleep(clock: Clock, ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted) throw new InterruptedError();
  try {
    await clock.sleep(ms, signal);
  } catch (error) {
    if (signal?.aborted) throw new InterruptedError();
    throw error;
  }
}

/**
 * Announces a wait, then sleeps as sleep() does. The announcement may return a function that is
 * called when the wait ends, however it ends (to stop a spinner).
 */
export async function announcedSleep(
  clock: Clock,
  ms: number,
  signal: AbortSignal | undefined,
  announce: (() => void | (() => void) | Promise<void | (() => void)>) | undefined,
): Promise<void> {
  const end = await announce?.();
  try {
    await sleep(clock, ms, signal);
  } finally {
    if (typeof end === 'function') end();
  }
}
