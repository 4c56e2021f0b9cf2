import { once } from 'node:events';
import type { Writable } from 'node:stream';

/** Result lines on stdout, each written as it comes; after a failed write it takes nothing more (the run stops on that signal). */
export class StdoutLines {
  #drain: Promise<void> | undefined;

  /** `around`: how a write reaches a terminal that also shows a live line (Progress.aboveLine). */
  constructor(
    private readonly stdout: { stream: Writable; failed: AbortSignal },
    private readonly around: (write: () => void) => void = (write) => write(),
  ) {}

  /** Writes whole lines; a promise to wait for only when the run should (stdout is full), else undefined. */
  write(text: string, encoding: 'utf8' | 'latin1' = 'utf8'): Promise<void> | undefined {
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

  /** Whole lines in bulk (a dry run's held lines); resolves when stdout takes more. */
  async writeText(text: string, encoding: 'utf8' | 'latin1'): Promise<void> {
    await this.write(text, encoding);
  }
}
