// Per-key rate limiting with two fixed windows (per "minute" and per "day") and
// a ban for keys that retry too early after a 429.
//
// Windows: a key's window opens with its first counted request and closes at
// the first whole Unix second at or after open + length, so X-RateLimit-Reset
// is exactly the instant the window ends. Only allowed requests are counted.
//
// Retry-After on a 429 = max(1, ceil((reset - now) / 1s)), where reset is the
// end of the exhausted window (the later one if both are). Waiting Retry-After
// seconds, or until X-RateLimit-Reset, always lands at or after that reset.
//
// Ban: after a 429, a request from that key arriving before the reset instant
// the 429 announced (minus a small grace for timer jitter) bans the key for
// banMs; its 403 carries Retry-After = ceil(remaining ban). Requests during a
// ban get 403 and do not extend it; they are not counted.

export interface RateLimitConfig {
  /** Requests allowed per short window (the plan's "per minute"). */
  perWindow: number;
  /** Length of the short window in ms (60,000 by default). */
  windowMs: number;
  /** Requests allowed per long window (the plan's "per day"). */
  perDay: number;
  /** Length of the long window in ms (86,400,000 by default). */
  dayWindowMs: number;
  /** Whether an early retry after a 429 bans the key. */
  ban: boolean;
  /** Length of a ban in ms. */
  banMs: number;
  /** A retry this many ms before the announced instant is still tolerated. */
  banGraceMs: number;
}

/** What X-RateLimit-* report: the most constrained window. */
export interface RateHeaders {
  limit: number;
  remaining: number;
  /** Unix seconds at which that window ends. */
  reset: number;
}

export type Decision =
  | { kind: 'allow'; headers: RateHeaders }
  | { kind: 'limited'; headers: RateHeaders; retryAfter: number; which: 'window' | 'day' }
  | { kind: 'banned'; headers: RateHeaders; retryAfter: number; newBan: boolean };

interface Window {
  count: number;
  /** Epoch ms, a whole second; 0 when never opened. */
  end: number;
}

interface KeyState {
  short: Window;
  long: Window;
  /** After a 429: requests before this instant (epoch ms) trigger a ban. */
  retryNotBefore: number;
  /** Epoch ms until which the key is banned (0 = not banned). */
  bannedUntil: number;
}

const ceilSecond = (ms: number) => Math.ceil(ms / 1000) * 1000;

/**
 * Where the window that holds `now` ends, the one before it having ended at `end` (0: the key's first).
 * Windows that are not whole seconds still end on one (X-RateLimit-Reset is whole seconds).
 */
function windowEnd(end: number, lengthMs: number, now: number): number {
  if (end === 0) return ceilSecond(now + lengthMs);
  return ceilSecond(end + (Math.floor((now - end) / lengthMs) + 1) * lengthMs);
}
const secondsUntil = (ms: number, now: number) => Math.max(1, Math.ceil((ms - now) / 1000));

/** The sandbox server's side of the rate limit: each key's requests per window and per day, 429s and bans. (The CLI's own pacing is src/ratelimit/limiter.ts.) */
export class QuotaKeeper {
  private readonly keys = new Map<string, KeyState>();

  constructor(readonly config: RateLimitConfig) {}

  private state(key: string): KeyState {
    let s = this.keys.get(key);
    if (!s) {
      s = { short: { count: 0, end: 0 }, long: { count: 0, end: 0 }, retryNotBefore: 0, bannedUntil: 0 };
      this.keys.set(key, s);
    }
    return s;
  }

  /**
   * The window as it stands at `now`. The first opens with the key's first request and ends on a whole
   * second; the next ones follow it on a fixed grid, as a server's per-minute windows follow the clock: a
   * request a little after a reset is in the window that began at that reset (a client coming back late
   * loses only that little, not a second; issue #18). An ended window reads as an empty one.
   */
  private static effective(w: Window, lengthMs: number, now: number): Window {
    return now < w.end ? w : { count: 0, end: windowEnd(w.end, lengthMs, now) };
  }

  private headers(short: Window, long: Window): RateHeaders {
    const a = { limit: this.config.perWindow, remaining: Math.max(0, this.config.perWindow - short.count), end: short.end };
    const b = { limit: this.config.perDay, remaining: Math.max(0, this.config.perDay - long.count), end: long.end };
    // Lowest remaining wins; on a tie the window that ends later.
    const pick = b.remaining < a.remaining || (b.remaining === a.remaining && b.end > a.end) ? b : a;
    return { limit: pick.limit, remaining: pick.remaining, reset: pick.end / 1000 };
  }

  /** Decides one request of a recognised key at `now` (epoch ms) and counts it if allowed. */
  check(key: string, now: number): Decision {
    const s = this.state(key);
    const short = QuotaKeeper.effective(s.short, this.config.windowMs, now);
    const long = QuotaKeeper.effective(s.long, this.config.dayWindowMs, now);

    if (s.bannedUntil > now) {
      return { kind: 'banned', headers: this.headers(short, long), retryAfter: secondsUntil(s.bannedUntil, now), newBan: false };
    }
    if (this.config.ban && now < s.retryNotBefore - this.config.banGraceMs) {
      s.bannedUntil = now + this.config.banMs;
      s.retryNotBefore = 0;
      return { kind: 'banned', headers: this.headers(short, long), retryAfter: secondsUntil(s.bannedUntil, now), newBan: true };
    }

    const shortFull = short.count >= this.config.perWindow;
    const longFull = long.count >= this.config.perDay;
    if (shortFull || longFull) {
      const reset = Math.max(shortFull ? short.end : 0, longFull ? long.end : 0);
      s.retryNotBefore = reset;
      const which = longFull && long.end === reset ? 'day' : 'window';
      return { kind: 'limited', headers: this.headers(short, long), retryAfter: secondsUntil(reset, now), which };
    }

    s.short = { count: short.count + 1, end: short.end };
    s.long = { count: long.count + 1, end: long.end };
    return { kind: 'allow', headers: this.headers(s.short, s.long) };
  }

  /** The key's headers at `now` without counting anything. */
  peek(key: string, now: number): RateHeaders {
    const s = this.state(key);
    return this.headers(QuotaKeeper.effective(s.short, this.config.windowMs, now), QuotaKeeper.effective(s.long, this.config.dayWindowMs, now));
  }

  /** Forgets all counts, pending retries and bans. */
  reset(): void {
    this.keys.clear();
  }
}
