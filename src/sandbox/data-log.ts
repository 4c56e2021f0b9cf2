// Writes the --data file (its format: persist.ts). A create is acknowledged only once its line is in the
// file: each line is written whole by one synchronous write(2) before its 201 goes out, so a create the
// sandbox acknowledged survives kill -9 or a crash of the sandbox. The creates of one turn of the event
// loop share that write (group commit: their lines are gathered and written together once the turn's
// input is handled, then they are answered): with 8 connections a write carries several lines, and a
// write(2) was the largest cost of a create with --data.
// The file is fdatasynced in the background at most a second after a write, so a crash of the machine
// (or a power cut) loses at most about the last second; syncing before each 201 cut the throughput to a
// third (17,000 against 50,000 creates/s here, 8 connections), for a promise the sandbox's users (demos,
// tests) do not need. The file is rewritten whole (compacted) at start and once the lines written since
// the last rewrite outnumber the pets, through a temp file named after this process (`<file>.tmp-<pid>`),
// fsynced and renamed, so a rewrite cut short by kill -9 leaves debris the next start recognises and
// removes. A failed write is cut back to the lines before it, so the file stays whole and valid.

import { ftruncateSync, writeSync } from 'node:fs';
import { type FileHandle, open, readdir, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { replaceDurably } from '../fs/durable-write.js';
import { processAlive } from '../fs/local-process.js';

/** Told once a line is in the file (error undefined) or is not. */
type Done<T> = (item: T, error: Error | undefined) => void;

interface Waiting {
  text: string;
  item: unknown;
  done: Done<unknown>;
}

const settlePromise: Done<{ resolve: () => void; reject: (error: Error) => void }> = (p, error) => (error ? p.reject(error) : p.resolve());

/** What the file should hold now: its whole text (persist.ts) and how many pets that is. */
export interface DataSource {
  text(): string;
  pets(): number;
}

export interface DataLogOptions {
  /** A write that failed in the background (a compaction, a seeded pet), for a one-line log. */
  onError?: (error: unknown) => void;
}

export class DataLog {
  #fh: FileHandle;
  /** Where the next line goes: the end of the lines. */
  #size: number;
  #queue: Waiting[] = [];
  #running: Promise<void> | undefined;
  /** A write of the queued lines is due at the end of this turn of the event loop. */
  #flushDue = false;
  readonly #flushLater = () => {
    this.#flushDue = false;
    this.#flush();
  };
  /** Lines written since the file was last rewritten whole. */
  #appended = 0;
  /** A failed write could not be cut back: the file must be rewritten before the next one. */
  #broken = false;
  #closed = false;
  /** The background fdatasync, when one is due or running. */
  #syncTimer: NodeJS.Timeout | undefined;
  #syncing: Promise<void> | undefined;
  /** Writes of lines that reached the file (each a batch), and writes that failed. */
  writes = 0;
  errors = 0;

  private constructor(
    readonly file: string,
    private readonly source: DataSource,
    private readonly options: DataLogOptions,
    fh: FileHandle,
    size: number,
  ) {
    this.#fh = fh;
    this.#size = size;
  }

  /** Removes a dead run's temp files, rewrites the file whole from `source` and opens it for writing. */
  static async open(file: string, source: DataSource, options: DataLogOptions = {}): Promise<DataLog> {
    await removeDebris(file);
    const size = await rewrite(file, source.text());
    const fh = await open(file, 'r+');
    return new DataLog(file, source, options, fh, size);
  }

  /**
   * Adds one line (with its newline) and writes it, with any lines waiting, now (or after a rewrite under
   * way); resolves once it is in the file, rejects when it is not there.
   */
  append(line: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.add(line, { resolve, reject }, settlePromise);
      this.#flush();
    });
  }

  /**
   * Adds one line (with its newline), written with the others added in this turn of the event loop by
   * one write(2) at its end (setImmediate); then `done(item, error)` is called, error undefined when the
   * line is in the file. No promise: this is every create's path.
   */
  add<T>(line: string, item: T, done: Done<T>): void {
    if (this.#closed) {
      done(item, new Error(`the data file ${this.file} is closed`));
      return;
    }
    this.#queue.push({ text: line, item, done: done as Done<unknown> });
    if (!this.#flushDue && !this.#running) {
      this.#flushDue = true;
      setImmediate(this.#flushLater);
    }
  }

  /** Writes the waiting lines now, or has the rewrite under way (or due) write them after it. */
  #flush(): void {
    if (this.#running || this.#queue.length === 0) return;
    if (this.#compactionDue()) {
      this.#running = this.#drain().finally(() => {
        this.#running = undefined;
      });
      return;
    }
    this.#writeBatch();
  }

  /** Writes every waiting line with one write and tells each how it went. */
  #writeBatch(): void {
    const batch = this.#queue;
    this.#queue = [];
    let failure: Error | undefined;
    try {
      let text = '';
      for (const w of batch) text += w.text;
      this.#write(text, batch.length);
    } catch (error) {
      failure = error instanceof Error ? error : new Error(String(error));
    }
    for (const w of batch) w.done(w.item, failure);
  }

  #compactionDue(): boolean {
    return this.#broken || this.#appended > Math.max(1000, this.source.pets());
  }

  /** Writes lines at the end of the file; a failed write is cut back (or the file marked for a rewrite) and thrown. */
  #write(text: string, lines = 1): void {
    if (this.#broken) throw new Error(`the data file ${this.file} could not be repaired after a failed write`);
    const at = this.#size;
    const size = Buffer.byteLength(text);
    try {
      // The string as it is (no Buffer per batch); a write may store only part of the bytes (the disk
      // filled up during it): the rest from a Buffer, and the next write then fails.
      let written = writeSync(this.#fh.fd, text, at);
      if (written < size) {
        const bytes = Buffer.from(text, 'utf8');
        while (written < size) written += writeSync(this.#fh.fd, bytes, written, size - written, at + written);
      }
    } catch (error) {
      this.errors++;
      try {
        // Whatever part reached the file goes: the lines before it stay the file's end.
        ftruncateSync(this.#fh.fd, at);
      } catch {
        this.#broken = true;
      }
      throw error;
    }
    this.#size += size;
    this.writes++;
    this.#appended += lines;
    this.#syncSoon();
  }

  /** Resolves when every line added so far is in the file (or failed). */
  async idle(): Promise<void> {
    this.#flush();
    while (this.#running) await this.#running;
  }

  /** Writes what is queued, syncs the file to disk and closes it. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.idle();
    clearTimeout(this.#syncTimer);
    this.#syncTimer = undefined;
    try {
      await this.#syncing;
      await this.#fh.datasync();
    } finally {
      await this.#fh.close();
    }
  }

  async #drain(): Promise<void> {
    while (this.#queue.length > 0) {
      if (this.#compactionDue()) await this.#compact();
      this.#writeBatch();
    }
  }

  /** An fdatasync at most a second from now (one at a time; a failure is logged, the lines are kept). */
  #syncSoon(): void {
    if (this.#syncTimer || this.#closed) return;
    this.#syncTimer = setTimeout(() => {
      this.#syncTimer = undefined;
      this.#syncing = this.#fh.datasync().then(
        () => undefined,
        (error: unknown) => this.options.onError?.(error),
      );
    }, 1000);
    this.#syncTimer.unref();
  }

  /** Rewrites the file whole (between batches: what is stored then, plus the lines queued after). */
  async #compact(): Promise<void> {
    try {
      await this.#syncing;
      const size = await rewrite(this.file, this.source.text());
      const fh = await open(this.file, 'r+');
      await this.#fh.close().catch(() => {});
      this.#fh = fh;
      this.#size = size;
      this.#appended = 0;
      this.#broken = false;
    } catch (error) {
      this.errors++;
      this.options.onError?.(error);
    }
  }
}

const tempName = (file: string, pid: number) => `${file}.tmp-${pid}`;

/** Writes `text` as the whole of `file` (fs/durable-write.ts); an existing file keeps its mode. Returns the size written. */
async function rewrite(file: string, text: string): Promise<number> {
  const mode = await stat(file).then(
    (s) => s.mode & 0o7777,
    () => undefined,
  );
  const bytes = Buffer.from(text, 'utf8');
  replaceDurably(file, bytes, tempName(file, process.pid), mode);
  return bytes.length;
}

/** Temp files of earlier runs on this file whose process no longer runs (killed while rewriting it). */
async function removeDebris(file: string): Promise<void> {
  const prefix = `${basename(file)}.tmp-`;
  const names = await readdir(dirname(file)).catch(() => [] as string[]);
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(name.slice(prefix.length));
    if (!Number.isInteger(pid) || pid <= 0 || (pid !== process.pid && processAlive(pid))) continue;
    await unlink(join(dirname(file), name)).catch(() => {});
  }
}
