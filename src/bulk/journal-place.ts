import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { makeDir } from '../fs/make-dir.js';
import { basename, join } from 'node:path';
import { UsageError } from '../errors/errors.js';
import { lastRunFinished } from './journal-read.js';
import { storageProblem } from '../io/storage-problem.js';

const short = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 12);

/** A readable, safe file-name part from the input's name. */
function slug(input: string): string {
  if (input === '-') return 'stdin';
  const name = basename(input)
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .slice(0, 40);
  return name === '' || name.startsWith('.') ? `input${name}` : name;
}

export interface DefaultJournal {
  path: string;
  /** Unfinished journals of the same input path and server with other contents: continuing one must be asked for by name (records match by line). */
  others: string[];
}

/**
 * The journal kept without --results: in <state>/journals, named by the input's name, a key of its absolute path and the
 * server's base URL (staging and production are two runs), and a key of its contents.
 */
export function defaultJournal(state: string, input: { absPath: string; sha256: string }, target: string): DefaultJournal {
  const dir = join(state, 'journals');
  try {
    makeDir(dir, 0o700);
  } catch (error) {
    throw new UsageError(`cannot make the journal folder ${dir}: ${storageProblem(error)}; set PETSTORE_STATE_DIR, or pass --results <file>`);
  }
  const prefix = `${slug(input.absPath)}.${short(`${target}\n${input.absPath}`)}.`;
  const path = join(dir, `${prefix}${input.sha256.slice(0, 12)}.ndjson`);
  // stdin has no path to tie runs together: its contents are all there is.
  const others =
    input.absPath === '-'
      ? []
      : readdirSync(dir)
          .filter((name) => name.startsWith(prefix) && name.endsWith('.ndjson') && join(dir, name) !== path)
          .map((name) => join(dir, name))
          .filter((other) => !lastRunFinished(other));
  return { path, others };
}
