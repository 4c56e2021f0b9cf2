import { once } from 'node:events';
import type { Writable } from 'node:stream';

/**
 * Result lines on stdout (the journal has them too). Lines finished in the same event-loop turn are
 * written together: one write per turn instead of one per record, a measurable share of seeding time.
 * A stdout that failed (its reader exited, a full disk) takes nothing more: the run stops on that signal.
 */
export class StdoutLines {
  #pending = '';
  #scheduled = false;
  #drain: Promise<void> | undefined;

  /** `around`: how a write reaches a terminal that also shows a live line (Progress.aboveLine). */
  constructor(
    private readonly stdout: { stream: Writable; failed: AbortSignal },
    private readonly around: (write: () => void) => void = (write) => write(),
  ) {}

  /** Takes a line; a promise to wait for only when the run should (stdout is full), else undefined. */
  write(text: string): Promise<void> | undefined {
    this.#pending += text;
    if (this.#pending.length >= 65_536) return this.flush();
    if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(() => {
        this.#scheduled = false;
        void this.flush();
      });
    }
    return this.#drain;
  }

  async flush(): Promise<void> {
    const text = this.#pending;
    this.#pending = '';
    if (text === '' || this.stdout.failed.aborted) return;
    let full = false;
    this.around(() => {
      full = !this.stdout.stream.write(text);
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
