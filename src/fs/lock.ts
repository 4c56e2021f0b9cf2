import { closeSync, openSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { CliError } from '../errors/errors.js';

const sleeper = new Int32Array(new SharedArrayBuffer(4));

function sleepSync(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}

export interface LockOptions {
  /** Give up after this long waiting for another process. */
  timeoutMs?: number;
  /** A lock file older than this was left by a crashed process and is taken over. */
  staleMs?: number;
}

/**
 * Runs fn while holding an exclusive lock file (O_EXCL create), so that
 * read-modify-write cycles of concurrent CLI processes never lose an update.
 */
export function withFileLock<T>(lockPath: string, fn: () => T, opts: LockOptions = {}): T {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const staleMs = opts.staleMs ?? 30_000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const fd = openSync(lockPath, 'wx', 0o600);
      try {
        writeSync(fd, String(process.pid));
      } finally {
        closeSync(fd);
      }
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      try {
        if (Date.now() - statSync(lockPath).mtimeMs > staleMs) unlinkSync(lockPath);
      } catch {
        // Released meanwhile: try again at once.
        continue;
      }
      if (Date.now() > deadline) {
        throw new CliError('failure', `${lockPath} is held by another petstore process; if none is running, delete that file`, {
          code: 'lock_timeout',
        });
      }
      sleepSync(5 + Math.random() * 20);
    }
  }
  try {
    return fn();
  } finally {
    try {
      unlinkSync(lockPath);
    } catch {
      // Already gone (taken over as stale): nothing to release.
    }
  }
}
