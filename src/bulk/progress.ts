import type { IO } from '../io/io.js';
import type { Clock } from '../time/clock.js';
import { formatInstant } from '../time/format.js';
import { quotaWindow } from '../ratelimit/fleet.js';
import type { Quota } from '../ratelimit/quota.js';
import type { WaitAnnouncer, WaitNotice } from '../ratelimit/wait-announcer.js';

export interface ProgressState {
  done: number;
  total: number;
  startedAt: number;
  quota: Quota | undefined;
}

/** The ETA: records left at the send rate plus the rate-limit windows they need; when the daily limit binds, when the run resumes. */
type Eta = { ms: number } | { resumesAt: number } | undefined;

/** The length of the limit's window, from the resets the answers announce: the smallest step between two (consecutive windows). */
export class WindowLength {
  #resetAt: number | undefined;
  ms: number | undefined;

  observe(q: Quota | undefined): void {
    if (!q || q.resetAt === this.#resetAt) return;
    if (this.#resetAt !== undefined && q.resetAt > this.#resetAt) this.ms = Math.min(this.ms ?? Number.POSITIVE_INFINITY, q.resetAt - this.#resetAt);
    this.#resetAt = q.resetAt;
  }
}

/** `perSecond`: the rate while sending (waits left out). */
export function estimate(left: number, q: Quota | undefined, now: number, perSecond: number, windowMs: number | undefined): Eta {
  const send = (n: number) => (perSecond > 0 ? (n / perSecond) * 1000 : Number.NaN);
  const fresh = q !== undefined && q.resetAt <= now;
  const available = !q ? left : fresh ? q.limit : q.remaining;
  if (left <= available || !q) return { ms: send(left) };
  if (quotaWindow(q) === 'day') return fresh ? undefined : { resumesAt: q.resetAt };
  if (q.limit === 0) return undefined;
  // After this window: full windows of `limit` records, then the last few; the window's length is needed only past the next reset.
  const windows = Math.ceil((left - available) / q.limit);
  if (windowMs === undefined && (fresh || windows > 1)) return undefined;
  const first = Math.max(fresh ? (windowMs as number) : q.resetAt - now, send(available));
  const full = windows > 1 ? (windows - 1) * Math.max(windowMs as number, send(q.limit)) : 0;
  return { ms: first + full + send(left - available - (windows - 1) * q.limit) };
}

function duration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '?';
  if (seconds < 60) return `${Math.ceil(seconds)}s`;
  return `${Math.floor(seconds / 60)}m${String(Math.ceil(seconds % 60)).padStart(2, '0')}s`;
}

// Short: the line must fit 80 columns with the counts, and the wait is what matters while it lasts.
const WAITING_FOR: Record<WaitNotice['reason'], string> = {
  rate_limited: 'after a 429',
  gate: 'for the limit',
  quota: 'for the reset',
  server: 'to retry (server error)',
  network: 'to retry (network error)',
};

function etaText(eta: Eta, now: number): string {
  if (eta === undefined || ('ms' in eta && !Number.isFinite(eta.ms))) return 'ETA ?';
  if ('ms' in eta) return `ETA ${duration(eta.ms / 1000)}`;
  // To the minute: "at 06:00", "tomorrow 06:00", else "at 2026-11-29 06:00".
  const when = formatInstant(eta.resumesAt, now).slice(0, -3);
  const tomorrow = when.length > 5 && formatInstant(eta.resumesAt, now + 86_400_000).length === 8;
  return `daily limit: resumes ${tomorrow ? `tomorrow ${when.slice(-5)}` : `at ${when}`}`;
}

function progressText(s: ProgressState, now: number, wait: WaitNotice | undefined, sendingMs: number, windowMs: number | undefined): string {
  const elapsed = Math.max(0.001, (now - s.startedAt) / 1000);
  const rate = s.done / elapsed;
  const pct = s.total > 0 ? Math.floor((s.done / s.total) * 100) : 100;
  const eta = estimate(s.total - s.done, s.quota, now, s.done / Math.max(0.001, sendingMs / 1000), windowMs);
  const quota = s.quota ? ` · quota ${s.quota.remaining}/${s.quota.limit}` : '';
  // While waiting nothing is sent: the wait takes the rate's place.
  const middle = wait ? `waiting ${duration(Math.max(0, wait.until - now) / 1000)} ${WAITING_FOR[wait.reason]}` : `${rate.toFixed(1)}/s`;
  return `seeding ${s.done}/${s.total} (${pct}%) · ${middle}${quota} · ${etaText(eta, now)}`;
}

/**
 * The one line a seeding run owns on a terminal's stderr: progress and the wait its workers are in (one per reset).
 * Off a terminal it only announces each distinct wait once.
 */
export class Progress {
  #last = 0;
  #shown = false;
  #state: ProgressState | undefined;
  readonly #waits = new Set<WaitNotice>();
  #ticker: NodeJS.Timeout | undefined;
  #announced: { reason: string; until: number } | undefined;
  readonly #window = new WindowLength();
  /** Time spent waiting (no wait in progress), and when the current wait began: the send rate leaves them out. */
  #waitedMs = 0;
  #waitingSince: number | undefined;

  constructor(
    private readonly io: IO,
    private readonly clock: Clock,
    private readonly enabled: boolean,
    private readonly quiet = false,
  ) {}

  update(state: ProgressState): void {
    this.#state = state;
    this.#window.observe(state.quota);
    if (!this.enabled) return;
    const now = this.clock.now();
    if (now - this.#last < 100) return;
    this.#draw(now);
  }

  /** Output to a stdout that is this terminal: the live line is taken down first, so a result line never shares its row. */
  readonly aboveLine = (write: () => void): void => {
    if (this.#shown) {
      this.io.stderr.write('\r\x1b[K');
      this.#shown = false;
    }
    write();
  };

  #draw(now: number): void {
    if (!this.#state) return;
    this.#last = now;
    this.#shown = true;
    const sendingMs = now - this.#state.startedAt - this.#waitedMs - (this.#waitingSince === undefined ? 0 : now - this.#waitingSince);
    const text = progressText(this.#state, now, this.#longestWait(), sendingMs, this.#window.ms);
    // A line longer than the terminal wraps, and \r then rewrites only its last row.
    const width = Math.max(20, (this.io.columns || 80) - 1);
    this.io.stderr.write(`\r\x1b[K${text.length > width ? `${text.slice(0, width - 1)}…` : text}`);
  }

  #longestWait(): WaitNotice | undefined {
    let longest: WaitNotice | undefined;
    for (const w of this.#waits) if (!longest || w.until > longest.until) longest = w;
    return longest;
  }

  /** The workers' client announces its waits here instead of drawing its own line. */
  readonly announce: WaitAnnouncer = (notice) => {
    if (!this.enabled) {
      if (this.quiet) return;
      const same = this.#announced && this.#announced.reason === notice.reason && Math.abs(this.#announced.until - notice.until) < 1000;
      if (!same) this.io.stderr.write(`${notice.text(notice.ms)}\n`);
      this.#announced = { reason: notice.reason, until: notice.until };
      return;
    }
    if (this.#waits.size === 0) this.#waitingSince = this.clock.now();
    this.#waits.add(notice);
    this.#ticker ??= setInterval(() => this.#draw(this.clock.now()), 1000);
    this.#ticker.unref();
    this.#draw(this.clock.now());
    return () => {
      this.#waits.delete(notice);
      if (this.#waits.size === 0 && this.#waitingSince !== undefined) {
        this.#waitedMs += this.clock.now() - this.#waitingSince;
        this.#waitingSince = undefined;
        clearInterval(this.#ticker);
        this.#ticker = undefined;
      }
    };
  };

  clear(): void {
    clearInterval(this.#ticker);
    this.#ticker = undefined;
    if (this.#shown) this.io.stderr.write('\r\x1b[K');
    this.#shown = false;
  }
}
