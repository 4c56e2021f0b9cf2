// Whether a signal has aborted, as a plain property shared by every caller of the same signal.

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
