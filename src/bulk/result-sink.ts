import { once } from 'node:events';
import type { Writable } from 'node:stream';

/** How long a result line may wait for others to be written with it. */
const GATHER_MS = 10;

/**
 * Result lines on stdout, those of GATHER_MS written together (a write per line costs a system call and a
 * wake-up of the reader: bench/README.md); after a failed write it takes nothing more (the run stops on that signal).
 */
export class StdoutLines {
  #drain: Promise<void> | undefined;
  #held = '';
  #timer: NodeJS.Timeout | undefined;

  /** `around`: how a write reaches a terminal that also shows a live line (Progress.aboveLine). */
  constructor(
    private readonly stdout: { stream: Writable; failed: AbortSignal },
    private readonly around: (write: () => void) => void = (write) => write(),
  ) {}

  /** Takes whole lines, written within GATHER_MS; a promise to wait for only when the run should (stdout is full), else undefined. */
  write(text: string): Promise<void> | undefined {
    if (this.stdout.failed.aborted) return undefined;
    this.#timer ??= setTimeout(() => this.flush(), GATHER_MS);
    this.#held += text;
    return this.#drain;
  }

  /** Writes the lines taken so far (when GATHER_MS is up, and at the end of the run). */
  flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const text = this.#held;
    this.#held = '';
    if (text !== '') this.#write(text, 'utf8');
  }

  /** Whole lines in bulk (a dry run's held lines), after those taken before; resolves when stdout takes more. */
  async writeText(text: string, encoding: 'utf8' | 'latin1'): Promise<void> {
    this.flush();
    await this.#write(text, encoding);
  }

  #write(text: string, encoding: 'utf8' | 'latin1'): Promise<void> | undefined {
    if (this.stdout.failed.aborted) return undefined;
    let full = false;
    this.around(() => {
      full = !this.stdout.stream.write(text, encoding);
    });
    if (full) {
      const drained = () => {
        this.#drain = undefined;
      };
      this.#drain ??= once(this.stdout.stream, 'drain', { signal: this.stdout.failed }).then(drained, drained);
    }
    return this.#drain;
  }
}
