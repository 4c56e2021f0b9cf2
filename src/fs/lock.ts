import { closeSync, linkSync, lstatSync, openSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { CliError, InterruptedError } from '../errors/errors.js';
import type { Clock } from '../time/clock.js';
import { processAlive, thisHost } from './local-process.js';
import { makeDir } from './make-dir.js';

export interface FileLockOptions {
  clock: Clock;
  staleMs: number;
  pollMs: number;
  maxPollMs?: number;
  timeoutMs?: number;
  signal?: AbortSignal | undefined;
  debug?: (line: string) => void;
}

const GUARD_STALE_MS = 2000;

/** The tokens of the locks this process holds: a lock with our pid but another token is a dead process's. */
const heldHere = new Set<string>();

type Verdict = { kind: 'gone' } | { kind: 'live'; pid: number; staleInMs: number } | { kind: 'stale'; reason: string; dir: boolean };

const GONE: Verdict = { kind: 'gone' };
const stale = (reason: string, dir = false): Verdict => ({ kind: 'stale', reason, dir });
const errorCode = (error: unknown) => (error as NodeJS.ErrnoException).code;

const LOCK_LINE = /^(\d{1,10}) (\S{1,255}) (\d{1,16})(?: ([a-z0-9]{1,32}))?\n?$/;

// An exclusive lock file, so petstore processes never lose an update to a shared file. Taken with link(2) from a
// fully written private file; a stale one is broken only under a second lock (`<lock>.break`) after judging it again.
export class FileLock {
  readonly #guard: string;
  #held: { ino: number; token: string } | undefined;

  constructor(
    readonly path: string,
    private readonly opts: FileLockOptions,
  ) {
    this.#guard = `${path}.break`;
  }

  async acquire(): Promise<boolean> {
    const token = Math.random().toString(36).slice(2, 12) || 't';
    const mine = `${this.path}.${process.pid}.${token}`;
    try {
      return await this.#wait(mine, token);
    } finally {
      // Already gone, or never made (a folder that cannot hold files): nothing to remove.
      try {
        unlinkSync(mine);
      } catch {}
    }
  }

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
      if (lstatSync(this.path).ino === held.ino) unlinkSync(this.path);
      else this.opts.debug?.(`${this.path} was taken over while held (held longer than ${this.opts.staleMs} ms?)`);
    } catch {
      // Broken by another process as stale: nothing to release.
    }
  }

  // Dated at each attempt: a lock taken after a long wait is not stale.
  #writeMine(mine: string, token: string): boolean {
    try {
      makeDir(dirname(this.path), 0o700);
      writeFileSync(mine, `${process.pid} ${thisHost} ${Math.floor(this.opts.clock.now())} ${token}\n`, { mode: 0o600 });
      return true;
    } catch {
      return false;
    }
  }

  async #wait(mine: string, token: string): Promise<boolean> {
    const { signal } = this.opts;
    const started = this.opts.clock.now();
    const maxPause = this.opts.maxPollMs ?? this.opts.pollMs * 16;
    let pause = this.opts.pollMs;
    let quickRetries = 0;
    for (;;) {
      if (!this.#writeMine(mine, token)) return false;
      let failed: string | undefined;
      try {
        linkSync(mine, this.path);
      } catch (error) {
        failed = errorCode(error) ?? 'EIO';
      }
      if (failed === undefined) {
        this.#held = { ino: lstatSync(mine).ino, token };
        heldHere.add(token);
        return true;
      }
      if (failed !== 'EEXIST') return false;
      const last = this.#inspect();
      // Gone meanwhile, or just broken: try again at once, but never more than a few times in a row.
      if ((last.kind === 'gone' || (last.kind === 'stale' && this.#breakStale())) && quickRetries++ < 3) continue;
      quickRetries = 0;
      // Only a wait is stopped: a free lock is taken even after Ctrl-C (the wind-down saves state).
      if (signal?.aborted) throw interrupted(signal);
      await sleepOrStop(this.opts.clock, this.#nextPause(pause, started, last), signal);
      pause = Math.min(maxPause, pause * 2);
    }
  }

  #nextPause(pause: number, started: number, last: Verdict): number {
    const { timeoutMs } = this.opts;
    const waited = this.opts.clock.now() - started;
    if (timeoutMs !== undefined && waited >= timeoutMs) throw this.#timedOut(waited, last);
    let ms = Math.round(pause * (0.5 + Math.random()));
    if (timeoutMs !== undefined) ms = Math.min(ms, timeoutMs - waited);
    if (last.kind === 'live') ms = Math.min(ms, last.staleInMs + 1);
    return Math.max(1, ms);
  }

  #inspect(): Verdict {
    let st: import('node:fs').Stats | undefined;
    try {
      st = lstatSync(this.path, { throwIfNoEntry: false });
    } catch (error) {
      return stale(`cannot stat it: ${errorCode(error)}`);
    }
    if (!st) return GONE;
    if (st.isDirectory()) return stale('a directory', true);
    if (!st.isFile()) return stale('not a regular file');
    try {
      return this.#judge(readFileSync(this.path, 'utf8'));
    } catch (error) {
      const code = errorCode(error);
      return code === 'ENOENT' ? GONE : stale(`unreadable (${code ?? (error as Error).message})`);
    }
  }

  #judge(text: string): Verdict {
    const m = LOCK_LINE.exec(text);
    if (!m) return stale(text.length === 0 ? 'empty' : 'not a petstore lock');
    const pid = Number(m[1]);
    const age = this.opts.clock.now() - Number(m[3]);
    if (age > this.opts.staleMs) return stale(`held for ${Math.round(age / 1000)} s by process ${pid}`);
    if (-age > this.opts.staleMs) return stale('dated in the future');
    if (m[2] === thisHost) {
      // Our pid with a token we do not hold: a dead process's that had our pid (a container's pid 1, a recycled pid).
      const token = m[4];
      if (pid === process.pid && token !== undefined && !heldHere.has(token)) return stale(`left by an earlier process ${pid}`);
      if (pid !== process.pid && (pid === 0 || !processAlive(pid))) return stale(`process ${pid} is gone`);
    }
    return { kind: 'live', pid, staleInMs: this.opts.staleMs - age };
  }

  #breakStale(): boolean {
    if (!this.#takeGuard()) return false;
    try {
      const now = this.#inspect();
      if (now.kind !== 'stale') return now.kind === 'gone';
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
        // Removed as stale by another process.
      }
    }
  }

  #takeGuard(): boolean {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        closeSync(openSync(this.#guard, 'wx', 0o600));
        return true;
      } catch (error) {
        if (errorCode(error) !== 'EEXIST') return false;
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
