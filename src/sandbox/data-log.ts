// Writes the --data file (docs/sandbox.md, "Data file"): each create's line synchronously before its 201,
// so an acknowledged create survives kill -9, fdatasynced at most a second later; rewritten whole at start.

import { closeSync, fdatasyncSync, ftruncateSync, openSync, readdirSync, rmSync, statSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { replaceDurably } from '../fs/durable-write.js';
import { processAlive } from '../fs/local-process.js';

export class DataLog {
  #fd: number;
  /** Where the next line goes: the end of the lines. */
  #size: number;
  #closed = false;
  #syncTimer: NodeJS.Timeout | undefined;
  writes = 0;
  errors = 0;

  /** Removes a dead run's temp files, rewrites the file whole with `text` (what is stored now, keeping its mode) and opens it. */
  constructor(
    readonly file: string,
    text: string,
    /** A failed sync in the background, for a one-line log. */
    private readonly onError: (error: unknown) => void = () => {},
  ) {
    removeDebris(file);
    const mode = statSync(file, { throwIfNoEntry: false })?.mode;
    const bytes = Buffer.from(text, 'utf8');
    replaceDurably(file, bytes, `${file}.tmp-${process.pid}`, mode === undefined ? undefined : mode & 0o7777);
    this.#size = bytes.length;
    this.#fd = openSync(file, 'r+');
  }

  /** Writes one line (with its newline) at the end of the file; throws when it is not there. */
  append(line: string): void {
    if (this.#closed) throw new Error(`the data file ${this.file} is closed`);
    const at = this.#size;
    const bytes = Buffer.from(line, 'utf8');
    try {
      // A write may store only part of the bytes (the disk filled up during it): the next one then fails.
      for (let written = 0; written < bytes.length; ) written += writeSync(this.#fd, bytes, written, bytes.length - written, at + written);
    } catch (error) {
      this.errors++;
      try {
        ftruncateSync(this.#fd, at);
      } catch {
        // The next line overwrites what is left; a last piece without its newline is dropped on load.
      }
      throw error;
    }
    this.#size += bytes.length;
    this.writes++;
    this.#syncTimer ??= setTimeout(() => {
      try {
        this.sync();
      } catch (error) {
        this.onError(error);
      }
    }, 1000).unref();
  }

  sync(): void {
    clearTimeout(this.#syncTimer);
    this.#syncTimer = undefined;
    if (!this.#closed) fdatasyncSync(this.#fd);
  }

  close(): void {
    if (this.#closed) return;
    try {
      this.sync();
    } finally {
      this.#closed = true;
      closeSync(this.#fd);
    }
  }
}

/** Removes the temp files of earlier runs on this file whose process is gone (killed while rewriting it). */
function removeDebris(file: string): void {
  const prefix = `${basename(file)}.tmp-`;
  for (const name of readdirSync(dirname(file))) {
    const pid = Number(name.slice(prefix.length));
    const dead = name.startsWith(prefix) && Number.isInteger(pid) && pid > 0 && (pid === process.pid || !processAlive(pid));
    if (dead) rmSync(join(dirname(file), name), { force: true });
  }
}
