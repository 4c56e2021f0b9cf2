import { closeSync, linkSync, lstatSync, openSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { makeDir } from './make-dir.js';
import { dirname } from 'node:path';
import { CliError, InterruptedError } from '../errors/errors.js';
import type { Clock } from '../time/clock.js';
import { processAlive, thisHost } from './local-process.js';

export interface FileLockOptions {
  clock: Clock;
  /** A lock held longer than this (by its own clock) was left by a crashed or stuck process and is broken. */
  staleMs: number;
  /** The first pause between attempts; it doubles up to maxPollMs (each with up to ±50 % jitter). */
  pollMs: number;
  /** The longest pause between attempts. Default 16 × pollMs. */
  maxPollMs?: number;
  /** Give up with an error after waiting this long; default: wait (a live holder's lock goes stale after staleMs). */
  timeoutMs?: number;
  /** Stops the wait (Ctrl-C, SIGTERM); acquire() may be given its own. */
  signal?: AbortSignal | undefined;
  debug?: (line: string) => void;
}

/** A takeover guard older than this was left by a process that died in the microseconds it is held. */
const GUARD_STALE_MS = 2000;

/** The tokens of the locks this process holds: a lock with our pid but another token is a dead process's. */
const heldHere = new Set<string>();

type Verdict = { kind: 'gone' } | { kind: 'live'; pid: number; staleInMs: number } | { kind: 'stale'; reason: string; dir: boolean };

const LOCK_LINE = /^(\d{1,10}) (\S{1,255}) (\d{1,16})(?: ([a-z0-9]{1,32}))?\n?$/;

/**
 * An exclusive lock file shared by concurrent petstore processes, so that their read-modify-write
 * cycles of one file never lose an update. The rule, for every lock petstore takes (the config file's
 * and the rate-limit state's):
 *
 * - Taken with link(2) from a fully written private file: the lock appears atomically with its content,
 *   "<pid> <host> <time> <token>". Nothing else is ever a live lock.
 * - Broken at once when it is not that (empty, garbage, unreadable, a directory or anything but a
 *   regular file), when its process is gone (same host), when it is a dead process's that had our pid,
 *   or when it is dated in the future; broken once it is older than staleMs otherwise (a stuck holder,
 *   or one on another host).
 * - A takeover is atomic: it runs under a second lock file (`<lock>.break`, O_EXCL) and judges the lock
 *   again under it before removing it, so two processes that both saw a stale lock never remove a fresh
 *   one between them (the race of delete-then-create takeovers, proper-lockfile's included).
 * - Waiting sleeps with a doubling backoff, honours a timeout and an AbortSignal, and never spins: a
 *   lock that cannot be removed is waited on like a live one.
 * - Release removes the lock only if it is still this one (same inode): a holder whose lock was broken
 *   as stale never removes its successor's.
 */
export class FileLock {
  readonly #host = thisHost;
  readonly #guard: string;
  /** The inode and token of the lock this object holds. */
  #held: { ino: number; token: string } | undefined;

  constructor(
    readonly path: string,
    private readonly opts: FileLockOptions,
  ) {
    this.#guard = `${path}.break`;
  }

  /** Takes the lock; false when its folder cannot hold one (the caller goes on without). */
  async acquire(signal: AbortSignal | undefined = this.opts.signal): Promise<boolean> {
    const { clock } = this.opts;
    const token = Math.random().toString(36).slice(2, 12) || 't';
    const mine = `${this.path}.${process.pid}.${token}`;
    const writeMine = () => writeFileSync(mine, `${process.pid} ${this.#host} ${Math.floor(clock.now())} ${token}\n`, { mode: 0o600 });
    try {
      try {
        writeMine();
      } catch (error) {
        // The folder is made only when missing: a mkdir per lock is one system call per rate-limit operation.
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        makeDir(dirname(this.path), 0o700);
        writeMine();
      }
    } catch {
      return false;
    }
    const started = clock.now();
    let pause = this.opts.pollMs;
    const maxPause = this.opts.maxPollMs ?? this.opts.pollMs * 16;
    let quickRetries = 0;
    let last: Verdict = { kind: 'gone' };
    try {
      for (;;) {
        let failed: string | undefined;
        try {
          // link(2) fails with EEXIST when the lock exists: creation with content, atomically.
          linkSync(mine, this.path);
        } catch (error) {
          failed = (error as NodeJS.ErrnoException).code ?? 'EIO';
        }
        if (failed === undefined) {
          this.#held = { ino: lstatSync(mine).ino, token };
          heldHere.add(token);
          return true;
        }
        if (failed !== 'EEXIST') return false;
        last = this.#inspect();
        // Gone meanwhile, or just broken: try again at once, but never more than a few times in a row.
        if ((last.kind === 'gone' || (last.kind === 'stale' && this.#breakStale())) && quickRetries++ < 3) continue;
        quickRetries = 0;
        // Only a wait is stopped: a free lock is taken even after Ctrl-C (the wind-down saves state).
        if (signal?.aborted) throw interrupted(signal);
        const waited = clock.now() - started;
        if (this.opts.timeoutMs !== undefined && waited >= this.opts.timeoutMs) throw this.#timedOut(waited, last);
        let ms = Math.round(pause * (0.5 + Math.random()));
        if (this.opts.timeoutMs !== undefined) ms = Math.min(ms, this.opts.timeoutMs - waited);
        // Not past the moment a live holder's lock goes stale: the bound on every wait.
        if (last.kind === 'live') ms = Math.min(ms, last.staleInMs + 1);
        await sleepOrStop(clock, Math.max(1, ms), signal);
        pause = Math.min(maxPause, pause * 2);
      }
    } finally {
      try {
        unlinkSync(mine);
      } catch {
        // Already gone.
      }
    }
  }

  /** The live petstore process holding the lock now, if any (for a refusal naming it). */
  holder(): { pid: number } | undefined {
    const now = this.#inspect();
    return now.kind === 'live' ? { pid: now.pid } : undefined;
  }

  release(): void {
    const held = this.#held;
    if (!held) return;
    this.#held = undefined;
    heldHere.delete(held.token);
    try {
      // Ours only if it is still the file we linked: broken as stale, it may be another process's now.
      if (lstatSync(this.path).ino === held.ino) unlinkSync(this.path);
      else this.opts.debug?.(`${this.path} was taken over while held (held longer than ${this.opts.staleMs} ms?)`);
    } catch {
      // Broken by another process as stale: nothing to release.
    }
  }

  /** What is at the lock's path now. Never blocks: only a regular file is read. */
  #inspect(): Verdict {
    let st: import('node:fs').Stats | undefined;
    try {
      st = lstatSync(this.path, { throwIfNoEntry: false });
    } catch (error) {
      return { kind: 'stale', reason: `cannot stat it: ${(error as NodeJS.ErrnoException).code}`, dir: false };
    }
    if (!st) return { kind: 'gone' };
    if (!st.isFile()) return { kind: 'stale', reason: st.isDirectory() ? 'a directory' : 'not a regular file', dir: st.isDirectory() };
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return { kind: 'gone' };
      return { kind: 'stale', reason: `unreadable (${code ?? (error as Error).message})`, dir: false };
    }
    const m = LOCK_LINE.exec(text);
    if (!m) return { kind: 'stale', reason: text.length === 0 ? 'empty' : 'not a petstore lock', dir: false };
    const pid = Number(m[1]);
    const host = m[2];
    const at = Number(m[3]);
    const token = m[4];
    const age = this.opts.clock.now() - at;
    if (age > this.opts.staleMs) return { kind: 'stale', reason: `held for ${Math.round(age / 1000)} s by process ${pid}`, dir: false };
    if (-age > this.opts.staleMs) return { kind: 'stale', reason: 'dated in the future', dir: false };
    if (host === this.#host) {
      if (pid === process.pid) {
        // Ours, or a dead process's that had our pid (a container's pid 1, a recycled pid).
        if (token !== undefined && !heldHere.has(token)) return { kind: 'stale', reason: `left by an earlier process ${pid}`, dir: false };
      } else if (pid === 0 || !processAlive(pid)) {
        return { kind: 'stale', reason: `process ${pid} is gone`, dir: false };
      }
    }
    return { kind: 'live', pid, staleInMs: this.opts.staleMs - age };
  }

  /**
   * Removes a stale lock, atomically with respect to every other petstore process: under the
   * takeover guard, and only if it is still stale there. True when the lock is gone (by us or not).
   */
  #breakStale(): boolean {
    if (!this.#takeGuard()) return false;
    try {
      const now = this.#inspect();
      if (now.kind === 'gone') return true;
      if (now.kind === 'live') return false;
      if (now.dir) rmSync(this.path, { recursive: true, force: true });
      else unlinkSync(this.path);
      this.opts.debug?.(`breaking stale lock ${this.path} (${now.reason})`);
      return true;
    } catch (error) {
      this.opts.debug?.(`cannot remove the stale lock ${this.path}: ${(error as Error).message}`);
      return false;
    } finally {
      try {
        unlinkSync(this.#guard);
      } catch {
        // Removed as stale by another process: held far too long.
      }
    }
  }

  /** The takeover guard, O_EXCL; one left behind by a crash is removed after GUARD_STALE_MS. */
  #takeGuard(): boolean {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        closeSync(openSync(this.#guard, 'wx', 0o600));
        return true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return false;
      }
      // Another process is breaking the lock right now, or one died doing it.
      try {
        const st = lstatSync(this.#guard, { throwIfNoEntry: false });
        if (st?.isFile() && Date.now() - st.mtimeMs < GUARD_STALE_MS) return false;
        rmSync(this.#guard, { recursive: true, force: true });
      } catch {
        return false;
      }
    }
    return false;
  }

  #timedOut(waited: number, last: Verdict): CliError {
    const holder =
      last.kind === 'live' ? `held by petstore process ${last.pid}` : last.kind === 'stale' ? `stale (${last.reason}) and cannot be removed` : 'busy';
    return new CliError(
      'failure',
      `timed out after ${(waited / 1000).toFixed(1)} s waiting for the lock ${this.path} (${holder}); if no petstore process is running, delete that file`,
      { code: 'lock_timeout' },
    );
  }
}

/** The signal's own reason when it is an InterruptedError (it names the signal: the exit code). */
function interrupted(signal: AbortSignal): Error {
  return signal.reason instanceof InterruptedError ? signal.reason : new InterruptedError();
}

async function sleepOrStop(clock: Clock, ms: number, signal: AbortSignal | undefined): Promise<void> {
  try {
    await clock.sleep(ms, signal);
  } catch (error) {
    if (signal?.aborted) throw interrupted(signal);
    throw error;
  }
}
