// Exponential backoff with full jitter: a uniformly random wait in [0, min(cap, base * factor^n)].

export interface BackoffOptions {
  baseMs?: number;
  factor?: number;
  capMs?: number;
  /** Uniform in [0, 1). */
  random?: () => number;
}

/** The upper bound of the wait before retry number `retry` (0 for the first): 1 s, doubling, at most 30 s. */
export function backoffCeiling(retry: number, { baseMs = 1000, factor = 2, capMs = 30_000 }: BackoffOptions = {}): number {
  return Math.min(capMs, baseMs * factor ** Math.max(0, retry));
}

/** A random wait in [0, ceiling] ms before retry number `retry`. */
export function backoffDelay(retry: number, opts: BackoffOptions = {}): number {
  const r = (opts.random ?? Math.random)();
  const unit = Number.isFinite(r) ? Math.min(1, Math.max(0, r)) : 0;
  return Math.round(unit * backoffCeiling(retry, opts));
}
