import type { IO } from '../io/io.js';
import type { Clock } from '../time/clock.js';
import type { Quota } from '../ratelimit/quota.js';

export interface ProgressState {
  done: number;
  total: number;
  startedAt: number;
  quota: Quota | undefined;
}

function duration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '?';
  if (seconds < 60) return `${Math.ceil(seconds)}s`;
  return `${Math.floor(seconds / 60)}m${String(Math.ceil(seconds % 60)).padStart(2, '0')}s`;
}

function progressText(s: ProgressState, now: number): string {
  const elapsed = Math.max(0.001, (now - s.startedAt) / 1000);
  const rate = s.done / elapsed;
  const pct = s.total > 0 ? Math.floor((s.done / s.total) * 100) : 100;
  const eta = rate > 0 ? duration((s.total - s.done) / rate) : '?';
  const quota = s.quota ? ` · quota ${s.quota.remaining}/${s.quota.limit}` : '';
  return `seeding ${s.done}/${s.total} (${pct}%) · ${rate.toFixed(1)}/s${quota} · ETA ${eta}`;
}

/** One self-rewriting line on a terminal's stderr; silent elsewhere (scripts and CI get only the summary). */
export class Progress {
  #last = 0;
  #shown = false;

  constructor(
    private readonly io: IO,
    private readonly clock: Clock,
    private readonly enabled: boolean,
  ) {}

  update(state: ProgressState, force = false): void {
    if (!this.enabled) return;
    const now = this.clock.now();
    if (!force && now - this.#last < 100) return;
    this.#last = now;
    this.#shown = true;
    this.io.stderr.write(`\r\x1b[K${progressText(state, now)}`);
  }

  clear(): void {
    if (this.#shown) this.io.stderr.write('\r\x1b[K');
    this.#shown = false;
  }
}
