import { InterruptedError } from '../errors/errors.js';

export interface Clock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The longest wait a response can impose: a day (the daily limit's window) plus an hour for rounding and clock skew. */
export const MAX_WINDOW_MS = 25 * 3600 * 1000;

/** The longest delay a Node timer takes (about 24.8 days): a longer one fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep(ms, signal) {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      // A delay a timer cannot take (NaN, Infinity, beyond MAX_TIMER_MS) re-arms until its end.
      const end = Date.now() + (Number.isNaN(ms) ? 0 : Math.max(0, ms));
      let timer: ReturnType<typeof setTimeout>;
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      const done = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      const arm = () => {
        const left = Math.max(0, end - Date.now());
        timer = setTimeout(left > MAX_TIMER_MS ? arm : done, Math.min(MAX_TIMER_MS, left));
      };
      arm();
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  },
};

export async function sleep(clock: Clock, ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted) throw new InterruptedError();
  try {
    await clock.sleep(ms, signal);
  } catch (error) {
    if (signal?.aborted) throw new InterruptedError();
    throw error;
  }
}

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
