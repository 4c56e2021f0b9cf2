// Announces retry and rate-limit waits on stderr: one line, or a spinner with a countdown on a terminal.

import type { IO } from '../io/io.js';
import type { Clock } from '../time/clock.js';

/** A wait about to start, with the line that announces it. */
export interface WaitNotice {
  reason: 'rate_limited' | 'gate' | 'quota' | 'server' | 'network';
  ms: number;
  until: number;
  /** The announcement with the time left, e.g. "rate limited; retrying in 12s (attempt 2/3)". */
  text(msLeft: number): string;
}

/** Announces a wait; may return a function called when the wait ends (to stop a spinner). */
export type WaitAnnouncer = (notice: WaitNotice) => void | (() => void) | Promise<void | (() => void)>;

export function createWaitAnnouncer({ io, clock, quiet }: { io: IO; clock: Clock; quiet: boolean }): WaitAnnouncer {
  return async (notice) => {
    if (quiet) return;
    const line = notice.text(notice.ms);
    const terminal = io.stderr.stream as Partial<Pick<NodeJS.WriteStream, 'cursorTo' | 'clearLine' | 'moveCursor'>>;
    const canSpin = io.spinner && typeof terminal.cursorTo === 'function' && typeof terminal.clearLine === 'function';
    if (!canSpin) {
      io.stderr.write(`${line}\n`);
      return;
    }
    const { default: ora } = await import('ora');
    const spinner = ora({
      text: line,
      stream: io.stderr.stream,
      isEnabled: true,
      discardStdin: false,
      color: io.colorStderr ? 'yellow' : false,
    }).start();
    const timer = setInterval(() => {
      spinner.text = notice.text(notice.until - clock.now());
    }, 1000);
    timer.unref?.();
    return () => {
      clearInterval(timer);
      spinner.stopAndPersist({ symbol: '-', text: line });
    };
  };
}
