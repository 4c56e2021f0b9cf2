import { once } from 'node:events';
import type { Writable } from 'node:stream';

/**
 * Result lines on stdout (the journal has them too). On a terminal, the lines finished in one
 * event-loop turn are written together; into a pipe or a file they wait up to 10 ms (or 64 KB) for
 * the lines after them: one write per turn was a measurable share of a bulk run's CPU (issue #18).
 * Not longer: a reader that leaves (`| head -1`) is noticed only when a write fails, and every
 * millisecond of waiting is records sent after it left. A kill -9 can cost the lines of those last
 * 10 ms on stdout, never in the journal.
 * A stdout that failed (its reader exited, a full disk) takes nothing more: the run stops on that signal.
 */
export class StdoutLines {
  #pending = '';
  #scheduled = false;
  #drain: Promise<void> | undefined;

  /**
   * `around`: how a write reaches a terminal that also shows a live line (Progress.aboveLine).
   * `terminal`: flush every turn rather than every 10 ms.
   */
  constructor(
    private readonly stdout: { stream: Writable; failed: AbortSignal },
    private readonly around: (write: () => void) => void = (write) => write(),
    private readonly terminal = false,
  ) {}

  /** Takes a line; a promise to wait for only when the run should (stdout is full), else undefined. */
  write(text: string): Promise<void> | undefined {
    this.#pending += text;
    if (this.#pending.length >= 65_536) return this.flush();
    if (!this.#scheduled) {
      this.#scheduled = true;
      const flush = () => {
        this.#scheduled = false;
        void this.flush();
      };
      if (this.terminal) setImmediate(flush);
      else setTimeout(flush, 10).unref();
    }
    return this.#drain;
  }

  async flush(): Promise<void> {
    const text = this.#pending;
    this.#pending = '';
    if (text !== '') await this.#put(text);
  }

  /** Whole lines in bulk (a dry run's held lines), after the lines taken before; resolves when stdout takes more. */
  async writeText(text: string, encoding: 'utf8' | 'latin1'): Promise<void> {
    await this.flush();
    await this.#put(text, encoding);
  }

  async #put(text: string, encoding: 'utf8' | 'latin1' = 'utf8'): Promise<void> {
    if (this.stdout.failed.aborted) return;
    let full = false;
    this.around(() => {
      full = !this.stdout.stream.write(text, encoding);
    });
    if (full) {
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
}
