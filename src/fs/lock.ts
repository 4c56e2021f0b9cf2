import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { CliError, InterruptedError } from '../errors/errors.js';
import { sleep, type Clock } from '../time/clock.js';

export interface FileLockOptions {
  clock: Clock;
  /** A lock held longer than this was left by a crashed process and is broken. */
  staleMs: number;
  /** Pause between attempts (plus up to as much jitter). */
  pollMs: number;
  /** Give up with an error after waiting this long; default: wait as long as it takes. */
  timeoutMs?: number;
  debug?: (line: string) => void;
}

/**
 * An exclusive lock file shared by concurrent petstore processes, so that their
 * read-modify-write cycles of one file never lose an update. It holds
 * "<pid> <host> <time>": a lock whose process is gone (same host) or that is
 * older than staleMs is broken.
 */
export class FileLock {
  readonly #host = hostname();

  constructor(
    readonly path: string,
    private readonly opts: FileLockOptions,
  ) {}

  /** Takes the lock; false when its folder cannot hold one (the caller goes on without). */
  async acquire(signal?: AbortSignal): Promise<boolean> {
    const { clock } = this.opts;
    const mine = `${this.path}.${process.pid}.${Math.random().toString(36).slice(2, 10)}`;
    const writeMine = () => writeFileSync(mine, `${process.pid} ${this.#host} ${clock.now()}\n`, { mode: 0o600 });
    try {
      try {
        writeMine();
      } catch (error) {
        // The folder is made only when missing: a mkdir per lock is one system call per rate-limit operation.
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
        writeMine();
      }
    } catch {
      return false;
    }
    const deadline = this.opts.timeoutMs === undefined ? Infinity : clock.now() + this.opts.timeoutMs;
    try {
      for (;;) {
        if (signal?.aborted) throw new InterruptedError();
        try {
          // link(2) fails with EEXIST when the lock exists: creation with content, atomically.
          linkSync(mine, this.path);
          return true;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return false;
        }
        if (this.#breakIfStale()) continue;
        if (clock.now() > deadline) {
          throw new CliError('failure', `${this.path} is held by another petstore process; if none is running, delete that file`, {
            code: 'lock_timeout',
          });
        }
        await sleep(clock, this.opts.pollMs + Math.floor(Math.random() * this.opts.pollMs), signal);
      }
    } finally {
      try {
        unlinkSync(mine);
      } catch {
        // Already gone.
      }
    }
  }

  release(): void {
    try {
      unlinkSync(this.path);
    } catch {
      // Broken by another process as stale: nothing to release.
    }
  }

  /** Removes a lock left by a dead process or held implausibly long; true when removed. */
  #breakIfStale(): boolean {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch {
      return true; // Released meanwhile: try again at once.
    }
    const [pidText, host, atText] = text.trim().split(' ');
    const pid = Number(pidText);
    const at = Number(atText);
    let stale = Number.isFinite(at) && this.opts.clock.now() - at > this.opts.staleMs;
    if (!stale && host === this.#host && Number.isInteger(pid) && pid > 0 && pid !== process.pid) {
      try {
        process.kill(pid, 0);
      } catch (error) {
        stale = (error as NodeJS.ErrnoException).code === 'ESRCH';
      }
    }
    if (!stale) return false;
    this.opts.debug?.(`breaking stale lock ${this.path} (${text.trim()})`);
    try {
      unlinkSync(this.path);
    } catch {
      // Someone else broke it first.
    }
    return true;
  }
}
