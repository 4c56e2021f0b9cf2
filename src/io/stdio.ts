import type { Writable } from 'node:stream';

export type Stream = Writable & { isTTY?: boolean; columns?: number };

/** Where stdout or stderr text goes: whole writes, and the stream itself for what needs one (backpressure, a prompt, a spinner). */
export interface Output {
  write(text: string): boolean;
  readonly stream: Stream;
  readonly isTTY: boolean;
  /** Aborted at the first failed write (EPIPE, ENOSPC), with its error; later text is dropped. */
  readonly failed: AbortSignal;
  fail(error: unknown): void;
}

const outputs = new WeakMap<Stream, Output>();

/** An Output over a stream; one per stream, with one 'error' listener (a failed write is otherwise an uncaught exception). */
export function streamOutput(stream: Stream): Output {
  let output = outputs.get(stream);
  if (output) return output;
  const failed = new AbortController();
  stream.on('error', (error: unknown) => {
    if (!failed.signal.aborted) failed.abort(error);
  });
  output = {
    write: (text) => stream.write(text),
    stream,
    isTTY: stream.isTTY === true,
    failed: failed.signal,
    fail: (error) => failed.abort(error),
  };
  outputs.set(stream, output);
  return output;
}

/** What a pipe always has room for when empty (PIPE_BUF): text up to this size never blocks on the fd. */
const UNBLOCKED_BYTES = 4096;

/**
 * fd 1 or 2 of this process, its stream made only when something needs it: a pipe's stream loads node:net
 * and node:stream, which short commands need not pay for (bench/README.md). Until then, the first few KiB
 * of text written to a pipe or a file go straight to the fd.
 */
export class ProcessOutput implements Output {
  #stream: Output | undefined;
  /** A character device, which may be a terminal: its stream is made at once. */
  readonly #device: boolean;
  /** What may still go straight to the fd. */
  #direct: number;
  #failed = new AbortController();

  constructor(
    readonly fd: number,
    private readonly make: () => Stream,
  ) {
    // A terminal is a character device; a pipe, socket or file is not, and asking no more keeps node:tty (which loads node:net) unloaded.
    let device = true;
    try {
      const st = process.getBuiltinModule('node:fs').fstatSync(fd);
      device = !(st.isFIFO() || st.isSocket() || st.isFile());
    } catch {}
    this.#device = device;
    this.#direct = device ? 0 : UNBLOCKED_BYTES;
  }

  get stream(): Stream {
    if (!this.#stream) {
      this.#stream = streamOutput(this.make());
      this.#stream.failed.addEventListener('abort', () => this.fail(this.#stream?.failed.reason), { once: true });
    }
    return this.#stream.stream;
  }

  get isTTY(): boolean {
    return this.#device && this.stream.isTTY === true;
  }

  get failed(): AbortSignal {
    return this.#failed.signal;
  }

  fail(error: unknown): void {
    if (!this.#failed.signal.aborted) this.#failed.abort(error);
  }

  write(text: string): boolean {
    if (this.#failed.signal.aborted) return false;
    const bytes = Buffer.from(text);
    if (this.#stream || bytes.length > this.#direct) return this.stream.write(bytes);
    this.#direct -= bytes.length;
    const { writeSync } = process.getBuiltinModule('node:fs');
    let done = 0;
    try {
      while (done < bytes.length) done += writeSync(this.fd, bytes, done);
      return true;
    } catch (error) {
      // A pipe left non-blocking by whoever made it: the rest goes through the stream, in order.
      if ((error as NodeJS.ErrnoException).code === 'EAGAIN') return this.stream.write(bytes.subarray(done));
      this.fail(error);
      return false;
    }
  }
}
