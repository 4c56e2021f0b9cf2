import { closeSync, constants, existsSync, fstatSync, ftruncateSync, openSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { once } from 'node:events';
import { dirname } from 'node:path';
import type { Writable } from 'node:stream';
import { UsageError } from '../errors/errors.js';
import { storageProblem } from '../io/storage-problem.js';

/** The same file (device and inode), however it is named: ./, .., a symbolic or a hard link. */
function sameFile(a: { dev: number; ino: number }, path: string | undefined): boolean {
  if (path === undefined) return false;
  try {
    const b = statSync(path);
    return a.dev === b.dev && a.ino === b.ino;
  } catch {
    return false;
  }
}

/**
 * The --results file. It is opened before anything is read or sent, so a path that cannot be written
 * (a missing folder, a read-only disk) or that names the input or the --resume file is refused with
 * nothing sent; but it is emptied only when the run starts writing (start()), so a run that stops
 * before (invalid records, no confirmation) leaves an existing file as it was.
 */
export class ResultsFile {
  #state: 'open' | 'started' | 'closed' = 'open';

  private constructor(
    readonly path: string,
    readonly fd: number,
    private readonly created: boolean,
    /** A regular file (not /dev/null, /dev/full or a pipe): it can be emptied and cut back. */
    readonly regular: boolean,
  ) {}

  /** Opens `path` for writing without truncating it; `input` and `resume` are the files it must not be. */
  static open(path: string, others: { input: string | undefined; resume: string | undefined }): ResultsFile {
    const refuse = (problem: string) => new UsageError(`--results ${path}: ${problem}; nothing was sent`);
    let fd: number;
    let created = true;
    try {
      try {
        fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o666);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        created = false;
        fd = openSync(path, constants.O_WRONLY | constants.O_CREAT);
      }
    } catch (error) {
      const missing = (error as NodeJS.ErrnoException).code === 'ENOENT' && !existsSync(dirname(path));
      throw refuse(missing ? `the folder ${dirname(path)} does not exist` : `cannot write there: ${storageProblem(error)}`);
    }
    const stat = fstatSync(fd);
    const clash = sameFile(stat, others.input)
      ? `the input file (--file ${others.input}): writing the results there would destroy the records`
      : sameFile(stat, others.resume)
        ? `the --resume file ${others.resume}: the earlier results are needed until the run ends`
        : undefined;
    if (clash) {
      closeSync(fd);
      throw new UsageError(`--results ${path} is ${clash}; name another file (nothing was sent)`);
    }
    return new ResultsFile(path, fd, created, stat.isFile());
  }

  /** The run starts writing results: an existing file is emptied now. */
  start(): void {
    if (this.#state !== 'open') return;
    this.#state = 'started';
    if (this.regular && !this.created) ftruncateSync(this.fd, 0);
  }

  /** The run ended before start(): a file it created is removed, an existing one was never touched. */
  abandon(): void {
    if (this.#state !== 'open') return;
    this.#state = 'closed';
    closeSync(this.fd);
    if (this.created) unlinkSync(this.path);
  }

  close(): void {
    if (this.#state === 'closed') return;
    this.#state = 'closed';
    closeSync(this.fd);
  }
}

/**
 * Where result lines go: the --results file or stdout. Lines finished in the same event-loop turn are
 * written together (one write per turn instead of one per record: a measurable share of seeding
 * time), so a line reaches the OS within one turn of its outcome being known.
 *
 * A write to the file that fails (a full disk, an I/O error) is not thrown into the run: the sink
 * cuts the file back to its last whole line (a torn line would be the last thing --resume reads),
 * calls `onFailure` once, and from then on keeps every line it is given in memory (`unwritten`), so
 * the run can stop sending and hand the lines it could not store to the user.
 */
export class ResultSink {
  #file: ResultsFile | undefined;
  #bytes = 0;
  #pending = '';
  #scheduled = false;
  #drain: Promise<void> | undefined;
  #failure: unknown;
  #unwritten = '';

  constructor(
    private readonly stdout: { stream: Writable; failed: AbortSignal },
    file: ResultsFile | undefined,
    private readonly toStdout: boolean,
    private readonly onFailure: (error: unknown) => void,
  ) {
    this.#file = file;
    file?.start();
  }

  /** The error of the first failed write to the results file, if any. */
  get failure(): unknown {
    return this.#failure;
  }

  /** The result lines that could not be written to the results file (after a failure). */
  get unwritten(): string {
    return this.#unwritten;
  }

  async write(text: string): Promise<void> {
    if (this.#file === undefined && !this.toStdout) return;
    this.#pending += text;
    if (this.#pending.length >= 65_536) await this.flush();
    else if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(() => {
        this.#scheduled = false;
        void this.flush();
      });
    }
    if (this.#drain) await this.#drain;
  }

  async flush(): Promise<void> {
    const text = this.#pending;
    this.#pending = '';
    if (text === '') return;
    if (this.#file !== undefined) this.#writeFile(this.#file, text);
    // A stdout that failed (its reader exited) takes nothing more: the run stops on that signal.
    else if (this.stdout.failed.aborted) return;
    else if (!this.stdout.stream.write(text)) {
      this.#drain ??= once(this.stdout.stream, 'drain', { signal: this.stdout.failed }).then(
        () => {
          this.#drain = undefined;
        },
        () => {
          this.#drain = undefined;
        },
      );
      await this.#drain;
    }
  }

  #writeFile(file: ResultsFile, text: string): void {
    if (this.#failure !== undefined) {
      this.#unwritten += text;
      return;
    }
    const bytes = Buffer.from(text);
    let written = 0;
    try {
      // A write may store only part of the bytes (the disk filled up during it); the next one then fails.
      while (written < bytes.length) written += writeSync(file.fd, bytes, written, bytes.length - written);
      this.#bytes += written;
    } catch (error) {
      const whole = written === 0 ? 0 : bytes.lastIndexOf(0x0a, written - 1) + 1;
      if (whole < written && file.regular) {
        try {
          ftruncateSync(file.fd, this.#bytes + whole);
        } catch {
          // The torn line stays; --resume ignores a torn last line (with a warning).
        }
      }
      this.#bytes += whole;
      this.#failure = error;
      this.#unwritten = bytes.subarray(whole).toString('utf8');
      this.onFailure(error);
    }
  }

  async close(): Promise<void> {
    await this.flush();
    this.#file?.close();
    this.#file = undefined;
  }
}
