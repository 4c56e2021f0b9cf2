// The journal of a seeding run: one NDJSON line per event in one write(2), `sending` before a record's request leaves and its
// outcome once known, so a kill leaves every record either settled or `unknown`. fsync'd at creation, every second, and at the end.

import {
  closeSync,
  constants,
  existsSync,
  fdatasync,
  fdatasyncSync,
  fstatSync,
  ftruncateSync,
  openSync,
  rmSync,
  type Stats,
  statSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';
import { type CliError, UsageError } from '../errors/errors.js';
import { FileLock } from '../fs/lock.js';
import { systemClock } from '../time/clock.js';
import { storageProblem } from '../io/storage-problem.js';
import { replaceDurably, syncFolder } from '../fs/durable-write.js';

/** The same file (device and inode), however it is named: ./, .., a symbolic or a hard link. */
export function sameFile(a: { dev: number; ino: number }, path: string | undefined): boolean {
  if (path === undefined) return false;
  try {
    const b = statSync(path);
    return a.dev === b.dev && a.ino === b.ino;
  } catch {
    return false;
  }
}

/** A journal line could not be written: the record it was for must not be sent. */
export class JournalWriteError extends Error {
  constructor(override readonly cause: unknown) {
    super(`cannot write the journal: ${storageProblem(cause)}`);
  }
}

const FSYNC_EVERY_MS = 1000;

/** `<journal>.lock` for the whole run (two runs on one journal would send records twice): never waited for; a dead holder's lock is taken over. */
async function lockJournal(path: string): Promise<FileLock | undefined> {
  const lock = new FileLock(`${path}.lock`, { clock: systemClock, staleMs: Number.POSITIVE_INFINITY, pollMs: 1, timeoutMs: 0 });
  try {
    return (await lock.acquire()) ? lock : undefined;
  } catch (error) {
    if ((error as CliError).code !== 'lock_timeout') throw error;
    const holder = lock.holder();
    throw new UsageError(
      `the journal ${path} is in use by another petstore${holder ? ` (pid ${holder.pid})` : ''}: two runs on one journal would send records twice. Wait for it to end; if it is not running, remove ${path}.lock`,
    );
  }
}

export interface JournalOpenOptions {
  /** The file the journal must not be: the input (writing there would destroy the records). */
  input: { dev: number; ino: number } | undefined;
  /** How the input is named in messages: `--file pets.csv`, `--file - (stdin)`. */
  inputLabel: string;
  /** How the journal is named to the user in messages (--results, or the default journal). */
  label: string;
}

/** A journal opened for appending before anything is read or sent, so an unwritable path or the input itself is refused with nothing sent. */
export class Journal {
  #bytes: number;
  #dirty = false;
  #syncing: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  /** The error of the first failed write, if any. */
  failure: unknown;
  /** The outcome lines that could not be written (after a failure). */
  unwritten = '';
  #closed = false;
  #started = false;
  #onFailure: (error: unknown) => void = () => {};

  private constructor(
    readonly path: string,
    private fd: number,
    private readonly lock: FileLock | undefined,
    /** Created by this run (it did not exist before). */
    readonly created: boolean,
    /** Its size, device and inode when opened. */
    public stat: Stats,
  ) {
    this.#bytes = stat.size;
  }

  /** A regular file (not /dev/null, /dev/full or a pipe): it can be cut back and synced. */
  get regular(): boolean {
    return this.stat.isFile();
  }

  static async open(path: string, o: JournalOpenOptions): Promise<Journal> {
    const refuse = (problem: string) => new UsageError(`${o.label} ${path}: ${problem}; nothing was sent`);
    let fd: number;
    let created = true;
    try {
      try {
        fd = openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_EXCL, 0o600);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        created = false;
        fd = openSync(path, constants.O_WRONLY | constants.O_APPEND);
      }
    } catch (error) {
      const missing = (error as NodeJS.ErrnoException).code === 'ENOENT' && !existsSync(dirname(path));
      throw refuse(missing ? `the folder ${dirname(path)} does not exist` : `cannot write there: ${storageProblem(error)}`);
    }
    const stat = fstatSync(fd);
    if (o.input !== undefined && stat.dev === o.input.dev && stat.ino === o.input.ino) {
      closeSync(fd);
      throw new UsageError(
        `${o.label} ${path} is the input file (${o.inputLabel}): writing the journal there would destroy the records; name another file (nothing was sent)`,
      );
    }
    let lock: FileLock | undefined;
    try {
      lock = stat.isFile() ? await lockJournal(path) : undefined;
    } catch (error) {
      closeSync(fd);
      if (created) rmSync(path);
      if (error instanceof UsageError) throw error;
      throw refuse(`cannot make its lock file: ${storageProblem(error)}`);
    }
    return new Journal(path, fd, lock, created, stat);
  }

  /** Called once, at the first failed write. */
  onFailure(handler: (error: unknown) => void): void {
    this.#onFailure = handler;
  }

  /** Makes `text` the journal's contents in one step (private name, synced, renamed over it): a kill leaves it as it was or complete. */
  replaceContents(text: string): void {
    replaceDurably(this.path, text, `${this.path}.${process.pid}.new`, 0o600);
    closeSync(this.fd);
    this.fd = openSync(this.path, constants.O_WRONLY | constants.O_APPEND);
    this.stat = fstatSync(this.fd);
    this.#bytes = this.stat.size;
  }

  /** Drops a torn last line (a crash mid-write) before appending after it. */
  cutTo(bytes: number): void {
    if (bytes >= this.#bytes || !this.regular) return;
    ftruncateSync(this.fd, bytes);
    this.#bytes = bytes;
  }

  /** The first line of a new journal, synced with its folder so the file itself survives a crash. */
  start(header: string): void {
    this.#started = true;
    if (this.#bytes === 0 && !this.#append(header)) throw new JournalWriteError(this.failure);
    if (this.regular) {
      fdatasyncSync(this.fd);
      if (this.created) syncFolder(this.path);
      this.#timer = setInterval(() => this.#sync(), FSYNC_EVERY_MS);
      this.#timer.unref();
    }
  }

  /** Before a record's request leaves. Throws JournalWriteError if the line could not be written: then it must not be sent. */
  sending(text: string): void {
    if (this.failure !== undefined || !this.#append(text)) throw new JournalWriteError(this.failure);
  }

  /** An outcome line; after a failed write it is kept in `unwritten` instead. */
  outcome(text: string): void {
    if (this.failure !== undefined || !this.#append(text)) this.unwritten += text;
  }

  /** Writes `text` (whole lines) in one write(2); false when it failed (`failure` says why). */
  #append(text: string): boolean {
    const size = Buffer.byteLength(text);
    let written = 0;
    try {
      // A write may store only part of the bytes (the disk filled up during it): the rest from a
      // Buffer, and the next write then fails.
      written = writeSync(this.fd, text);
      if (written < size) {
        const bytes = Buffer.from(text);
        while (written < size) written += writeSync(this.fd, bytes, written, size - written);
      }
      this.#bytes += written;
      this.#dirty = true;
      return true;
    } catch (error) {
      if (written > 0 && this.regular) {
        try {
          // Back to the last whole line: a torn line would be the last thing --resume reads.
          ftruncateSync(this.fd, this.#bytes);
        } catch {
          // The torn line stays; --resume ignores a torn last line.
        }
      }
      this.failure = error;
      this.#onFailure(error);
      return false;
    }
  }

  #sync(): void {
    if (!this.#dirty || this.#syncing || this.#closed) return;
    this.#dirty = false;
    this.#syncing = new Promise((resolve) =>
      fdatasync(this.fd, () => {
        this.#syncing = undefined;
        resolve();
      }),
    );
  }

  /** Syncs, closes and unlocks. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#timer);
    await this.#syncing;
    try {
      if (this.regular && this.#dirty) fdatasyncSync(this.fd);
    } catch {
      // Reported by the write that failed, if any; a sync error alone loses nothing a process kill would.
    }
    closeSync(this.fd);
    this.lock?.release();
  }

  /** The run ended before start(): a journal it created is removed, an existing one was not touched. */
  abandon(): void {
    if (this.#closed || this.#started) return;
    this.#closed = true;
    closeSync(this.fd);
    // One someone already removed is no error at the end of a run.
    if (this.created) rmSync(this.path, { force: true });
    this.lock?.release();
  }
}
