// The sandbox's rate limit per key (docs/sandbox.md, "Rate limits and the ban"): two fixed windows on a grid of
// whole Unix seconds; a request before a 429's reset (less a grace) bans the key.

import type { Limits } from './options.js';

/** What X-RateLimit-* report: the most constrained window; reset in Unix seconds. */
export interface RateHeaders {
  limit: number;
  remaining: number;
  reset: number;
}

export type Decision =
  | { kind: 'allow'; headers: RateHeaders }
  | { kind: 'limited'; headers: RateHeaders; retryAfter: number; which: 'window' | 'day' }
  | { kind: 'banned'; headers: RateHeaders; retryAfter: number; newBan: boolean };

/** A window's count and end (epoch ms, a whole second; 0 when never opened). */
interface Window {
  count: number;
  end: number;
}

/** retryNotBefore: after a 429, requests before this instant (epoch ms) start a ban; bannedUntil: 0 when not banned. */
interface KeyState {
  short: Window;
  long: Window;
  retryNotBefore: number;
  bannedUntil: number;
}

const secondsUntil = (ms: number, now: number) => Math.max(1, Math.ceil((ms - now) / 1000));

/** The window at `now`: an ended one reads as the empty window of the grid that holds `now`. */
function current(w: Window, lengthMs: number, now: number): Window {
  if (now < w.end) return w;
  const end = w.end === 0 ? now + lengthMs : w.end + (Math.floor((now - w.end) / lengthMs) + 1) * lengthMs;
  return { count: 0, end: Math.ceil(end / 1000) * 1000 };
}

export class QuotaKeeper {
  private readonly keys = new Map<string, KeyState>();

  constructor(readonly config: Pick<Limits, 'perMinute' | 'windowMs' | 'perDay' | 'dayWindowMs' | 'ban' | 'banSeconds' | 'banGraceMs'>) {}

  private state(key: string): KeyState {
    const s = this.keys.get(key) ?? { short: { count: 0, end: 0 }, long: { count: 0, end: 0 }, retryNotBefore: 0, bannedUntil: 0 };
    this.keys.set(key, s);
    return s;
  }

  private headers(short: Window, long: Window): RateHeaders {
    const a = { limit: this.config.perMinute, remaining: Math.max(0, this.config.perMinute - short.count), end: short.end };
    const b = { limit: this.config.perDay, remaining: Math.max(0, this.config.perDay - long.count), end: long.end };
    // Lowest remaining wins; on a tie the window that ends later.
    const pick = b.remaining < a.remaining || (b.remaining === a.remaining && b.end > a.end) ? b : a;
    return { limit: pick.limit, remaining: pick.remaining, reset: pick.end / 1000 };
  }

  /** Decides one request of a recognised key at `now` (epoch ms) and counts it if allowed. */
  check(key: string, now: number): Decision {
    const { config } = this;
    const s = this.state(key);
    const short = current(s.short, config.windowMs, now);
    const long = current(s.long, config.dayWindowMs, now);
    const newBan = s.bannedUntil <= now && config.ban && now < s.retryNotBefore - config.banGraceMs;
    if (newBan) {
      s.bannedUntil = now + config.banSeconds * 1000;
      s.retryNotBefore = 0;
    }
    if (s.bannedUntil > now) return { kind: 'banned', headers: this.headers(short, long), retryAfter: secondsUntil(s.bannedUntil, now), newBan };
    const shortFull = short.count >= config.perMinute;
    const longFull = long.count >= config.perDay;
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

  peek(key: string, now: number): RateHeaders {
    const s = this.state(key);
    return this.headers(current(s.short, this.config.windowMs, now), current(s.long, this.config.dayWindowMs, now));
  }

  reset(): void {
    this.keys.clear();
  }
}
