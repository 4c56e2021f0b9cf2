import { existsSync } from 'node:fs';
import { UsageError } from '../errors/errors.js';
import type { Factory } from '../factory.js';
import { stringifyJson } from '../json/int64.js';
import { escapeControl } from '../output/text.js';
import { openInput } from './input.js';
import { readJournal } from './journal-read.js';
import { defaultPath, journalCounts } from './journal-setup.js';
import type { SeedOptions } from './seed.js';

type ReportOptions = Pick<SeedOptions, 'file' | 'format' | 'resultsPath' | 'resume'>;

/** `pets add --file F --report`: a journal's last word on each input line, in input order (in flight: `unknown`); sends nothing. */
export async function report(f: Factory, o: ReportOptions): Promise<void> {
  let path = o.resultsPath ?? (typeof o.resume === 'string' ? o.resume : undefined);
  if (path === undefined) {
    const input = await openInput(o.file, o.format, f.io);
    try {
      path = (await defaultPath(f, input)).path;
    } finally {
      input.dispose();
    }
    if (!existsSync(path)) {
      throw new UsageError(
        `no journal for ${o.file} against this server (looked for ${path}): nothing was sent from it, or its journal is elsewhere (--results FILE)`,
      );
    }
  }
  const state = await readJournal(path, '--report', true);
  const lines = [...state.byLine.keys()].sort((a, b) => a - b);
  // On a terminal the journal's lines (names from the input and the server) are escaped.
  const shown = (text: string) => (f.io.stdoutIsTTY ? escapeControl(text, 'json') : text);
  let out = '';
  for (const line of lines) {
    const entry = state.byLine.get(line)!;
    out +=
      entry.status === 'sending'
        ? `${stringifyJson({ line, status: 'unknown', reason: 'in flight when the run stopped: it may or may not have been created' })}\n`
        : `${entry.text}\n`;
    if (out.length >= 65_536) {
      f.io.stdout.write(shown(out));
      out = '';
    }
  }
  f.io.stdout.write(shown(out));
  f.info(`${path}: ${journalCounts(state.byLine) || 'no records'}${state.finished ? '' : ' (the last run on it did not go through the whole input)'}`);
}
