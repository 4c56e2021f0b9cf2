// Whether a signal has aborted, as a plain property: `signal.aborted` validates its receiver on every
// read, and a signal made by AbortSignal.any() refreshes itself from its sources too, which a bulk run
// would pay once per request (issue #18). One listener per signal, whoever asks.

const flags = new WeakMap<AbortSignal, { aborted: boolean }>();

/** A flag that turns true when `signal` aborts (at once if it has), shared by every caller of the same signal. */
export function abortFlag(signal: AbortSignal): { readonly aborted: boolean } {
  let flag = flags.get(signal);
  if (flag === undefined) {
    const f = { aborted: signal.aborted };
    if (!f.aborted) signal.addEventListener('abort', () => (f.aborted = true), { once: true });
    flags.set(signal, f);
    flag = f;
  }
  return flag;
}
