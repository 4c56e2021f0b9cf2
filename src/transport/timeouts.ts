import { MAX_TIMER_MS } from '../time/clock.js';

/** How long a new connection (TCP, and TLS for https) may take: undici's default connectTimeout. */
export const CONNECT_TIMEOUT_MS = 10_000;

/** A --timeout in ms as a timer accepts it: a whole number from 1 to MAX_TIMER_MS. */
export function timerMs(ms: number): number {
  return Number.isFinite(ms) ? Math.min(MAX_TIMER_MS, Math.max(1, Math.ceil(ms))) : MAX_TIMER_MS;
}
