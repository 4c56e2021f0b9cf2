// Exponential backoff with full jitter (AWS architecture blog, "Exponential
// Backoff And Jitter"): wait a uniformly random time in [0, min(cap, base * factor^n)].

export interface BackoffOptions {
  /** First ceiling, ms (1 s). */
  baseMs?: number;
  factor?: number;
  /** Largest ceiling, ms (30 s). */
  capMs?: number;
  /** Uniform in [0, 1); injectable for tests. */
  random?: () => number;
}

const BACKOFF_DEFAULTS = { baseMs: 1000, factor: 2, capMs: 30_000 } as const;

/** The upper bound of the wait before retry number `retry` (0 for the first retry). */
export function backoffCeiling(retry: number, opts: BackoffOptions = {}): number {
  const base = opts.baseMs ?? BACKOFF_DEFAULTS.baseMs;
  const factor = opts.factor ?? BACKOFF_DEFAULTS.factor;
  const cap = opts.capMs ?? BACKOFF_DEFAULTS.capMs;
  return Math.min(cap, base * factor ** Math.max(0, retry));
}

/** A random wait in [0, ceiling] ms before retry number `retry` (0-based). */
export function backoffDelay(retry: number, opts: BackoffOptions = {}): number {
  const r = (opts.random ?? Math.random)();
  const unit = Number.isFinite(r) ? Math.min(1, Math.max(0, r)) : 0;
  return Math.round(unit * backoffCeiling(retry, opts));
}
