// A budget shared by a fleet of petstore processes (--limiter): every request takes one unit of it
// once the key's own limiter (limiter.ts) has let it through, right before it leaves, so a request
// counted in a window is sent in that window. The one implementation is redis-budget.ts; without
// --limiter there is none.

import type { Quota } from './quota.js';

export interface FleetBudget {
  /** True while the budget is up (not given up on): it counts every request of the fleet. */
  readonly counting: boolean;
  /**
   * Waits until the fleet's budget has room for one more request, and counts it. Resolves at once
   * when the budget is unavailable (the local limiter paces alone). Rejects only with InterruptedError,
   * or RateLimitedError when the wait would be longer than --max-wait.
   */
  take(signal?: AbortSignal): Promise<void>;
  /** The quota of the answer to the request take() let through; undefined when there was none. */
  learn(quota: Quota | undefined): Promise<void>;
  close(): Promise<void>;
}
