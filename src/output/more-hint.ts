// The hint under a list a page size may have cut: the interface gives no total, so it only says there may be more.

import type { IO } from '../io/io.js';
import { PAGE_SIZE } from '../flag-values.js';

/** On stderr, dim, when a person reads both streams; never in a pipe (scripts read data, not hints) nor with -q. */
export async function printMoreHint(f: { io: IO; info(line: string): void }, shown: number, limit: number | undefined): Promise<void> {
  const page = limit ?? PAGE_SIZE.serverDefault;
  if (shown < page || !f.io.stdoutIsTTY || !f.io.stderrIsTTY) return;
  const noun = shown === 1 ? 'pet' : 'pets';
  const hint =
    page < PAGE_SIZE.max
      ? `Showing ${shown} ${noun}; there may be more: use --limit (max ${PAGE_SIZE.max})`
      : `Showing ${shown} ${noun}, the most one request returns; there may be more: narrow the list with --status`;
  if (!f.io.colorStderr) return f.info(hint);
  const { Chalk } = await import('chalk');
  f.info(new Chalk({ level: 1 }).dim(hint));
}
