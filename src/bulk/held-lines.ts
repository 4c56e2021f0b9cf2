import { randomUUID } from 'node:crypto';
import { closeSync, openSync, readSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StdoutLines } from './result-sink.js';

/** Held in memory up to this many characters: a dry run of a few hundred records never touches the disk. */
const IN_MEMORY = 65_536;
/** Past that, written out this many characters at a time (small blocks keep a dry run's peak memory low). */
const WRITE_EVERY = 16_384;
/** Copied to stdout this many bytes at a time. */
const COPY_BYTES = 65_536;
/** Into a file or /dev/null every write is taken at once: a turn of the event loop this often lets Ctrl-C in. */
const YIELD_EVERY = 16;

/** Where held lines are copied to. */
export type LineOutput = Pick<StdoutLines, 'writeText'>;

/** A dry run's result lines, held while its one pass checks the records; past 64 KB in an unlinked temporary file (`failed` if it cannot be written). */
export class HeldLines {
  /** `seal`: what a block of whole lines becomes on its way out (masked, escaped); it keeps every line break. */
  constructor(private readonly seal: (lines: string) => string = (lines) => lines) {}

  #pending = '';
  #fd: number | undefined;
  /** Bytes in the file. */
  #size = 0;
  #lines = 0;
  /** A block could not be written out: the lines are dropped. */
  failed = false;

  add(line: string): void {
    if (this.failed) return;
    this.#lines++;
    this.#pending += line;
    if (this.#pending.length >= (this.#fd === undefined ? IN_MEMORY : WRITE_EVERY)) this.#writeOut();
  }

  /** Every line taken: those past the first 64 KB all written down (or `failed`). */
  end(): void {
    if (this.#fd !== undefined && this.#pending !== '') this.#writeOut();
  }

  /** After end(), unless `failed`: copies the lines to `out` until `stopped()`; returns how many it handed over. */
  async copyTo(out: LineOutput, stopped: () => boolean): Promise<number> {
    if (stopped()) return 0;
    if (this.#fd === undefined) {
      await out.writeText(this.seal(this.#pending), 'utf8');
      return this.#lines;
    }
    const fd = this.#fd;
    const chunk = Buffer.allocUnsafe(COPY_BYTES);
    let copied = 0;
    for (let chunks = 1; copied < this.#size && !stopped(); chunks++) {
      const read = readSync(fd, chunk, 0, Math.min(COPY_BYTES, this.#size - copied), copied);
      if (read === 0) break;
      // latin1 writes the bytes back as they are; a string, unlike a Buffer per chunk, is memory the garbage collector sees.
      await out.writeText(chunk.toString('latin1', 0, read), 'latin1');
      copied += read;
      if (chunks % YIELD_EVERY === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    return copied === this.#size ? this.#lines : this.#linesIn(copied);
  }

  dispose(): void {
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
    this.#pending = '';
  }

  #writeOut(): void {
    const text = this.seal(this.#pending);
    this.#pending = '';
    try {
      this.#fd ??= openUnlinked();
      const written = writeSync(this.#fd, text, this.#size);
      if (written !== Buffer.byteLength(text)) throw new Error('short write');
      this.#size += written;
    } catch {
      this.failed = true;
      this.dispose();
    }
  }

  /** The lines in the file's first `bytes` bytes, read again: wanted only when a copy stopped early. */
  #linesIn(bytes: number): number {
    const fd = this.#fd as number;
    const chunk = Buffer.allocUnsafe(COPY_BYTES);
    let lines = 0;
    for (let at = 0; at < bytes; ) {
      const read = readSync(fd, chunk, 0, Math.min(COPY_BYTES, bytes - at), at);
      if (read === 0) break;
      for (let i = chunk.indexOf(0x0a); i !== -1 && i < read; i = chunk.indexOf(0x0a, i + 1)) lines++;
      at += read;
    }
    return lines;
  }
}

/** A new 0600 temporary file (random name, O_EXCL), unlinked at once: only the returned descriptor reaches it. */
function openUnlinked(): number {
  const path = join(tmpdir(), `petstore-dry-run-${randomUUID()}`);
  const fd = openSync(path, 'wx+', 0o600);
  try {
    unlinkSync(path);
  } catch (error) {
    closeSync(fd);
    rmSync(path, { force: true });
    throw error;
  }
  return fd;
}
