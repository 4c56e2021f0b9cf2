// What a limiter has learnt from its answers and not yet published to the key's store.

import { type KeyRateState, mergeQuota } from './key-state.js';
import type { Quota } from './quota.js';

export class Unpublished {
  quota: Quota | undefined;
  /** When the latest request whose answer is in `quota`'s window left (mergeQuota's `sentAt`). */
  #sentAt = Number.NEGATIVE_INFINITY;
  gate = 0;

  add(q: Quota, sentAt: number): void {
    const pending = this.quota;
    if (pending === undefined) this.#sentAt = sentAt;
    else if (pending.resetAt === q.resetAt) this.#sentAt = Math.max(this.#sentAt, sentAt);
    else if (q.resetAt > pending.resetAt || sentAt > pending.seenAt) this.#sentAt = sentAt;
    this.quota = mergeQuota(pending, q, sentAt);
  }

  publish(s: KeyRateState): void {
    if (this.quota) s.quota = mergeQuota(s.quota, this.quota, this.#sentAt);
    if (this.gate > s.gateUntil) s.gateUntil = this.gate;
    this.quota = undefined;
    this.#sentAt = Number.NEGATIVE_INFINITY;
    this.gate = 0;
  }
}
