import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { CliError, UsageError } from '../errors/errors.js';
import { makeDir } from '../fs/make-dir.js';
import { storageProblem } from '../io/storage-problem.js';
import type { Factory } from '../factory.js';
import type { ReplayableInput } from './input.js';
import { Journal, sameFile } from './journal.js';
import { lastRunFinished, readJournal, type EarlierResult, type JournalState } from './journal-read.js';
import { formatResult, type JournalHeader } from './results.js';

export interface JournalChoice {
  /** The input file as given (`-` for stdin). */
  file: string;
  resultsPath: string | undefined;
  /** --resume FILE, --resume (true: the journal of this run), or not given. */
  resume: string | true | undefined;
  dryRun: boolean;
}

export interface PreparedJournal {
  /** Undefined for a dry run: nothing is sent, so nothing is journaled. */
  journal: Journal | undefined;
  /** What earlier runs said of each input line, when resuming. */
  earlier: Map<number, EarlierResult> | undefined;
  /** The earlier results are in the journal itself (it is continued, or starts as their copy): what it already says is not written again. */
  inPlace: boolean;
  /** `--results FILE`, `--resume FILE` or `the journal FILE`, for messages. */
  label: string;
}

/** "created 12, failed 1, unknown 2, in flight when it stopped 3" */
export function journalCounts(byLine: Map<number, EarlierResult>): string {
  const counts = new Map<string, number>();
  for (const { status } of byLine.values()) {
    const name = status === 'sending' ? 'in flight when it stopped' : status;
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return [...counts].map(([k, v]) => `${k} ${v}`).join(', ');
}

/** A dry run sends nothing, so it writes nothing: with --resume it only reads what would be skipped. */
async function dryRunJournal(f: Factory, o: JournalChoice, input: ReplayableInput, resumeFile: string | undefined): Promise<PreparedJournal> {
  const none: PreparedJournal = { journal: undefined, earlier: undefined, inPlace: false, label: '' };
  if (o.resume === undefined) return none;
  const path = resumeFile ?? o.resultsPath ?? (await defaultPath(f, input)).path;
  if (!existsSync(path)) return none;
  const state = await readJournal(path, '--resume');
  return { journal: undefined, earlier: state.byLine, inPlace: false, label: `the journal ${path}` };
}

/** What prepareJournal knows once the journal is open. */
interface Opened {
  journal: Journal;
  path: string;
  /** --results, --resume or the journal (the default one). */
  label: string;
  resumeFile: string | undefined;
  /** The default journal's place, when neither --results nor --resume FILE named one. */
  fromDefault: DefaultJournal | undefined;
  /** This run continues the journal it writes (--resume, with no other file to start from). */
  inPlace: boolean;
  target: string;
}

/** Refuses a journal that holds records unless the run continues it, and a default journal of an input edited since. */
function refuseOthers(o: Opened, input: ReplayableInput, own: JournalState | undefined, continueWith: () => string): void {
  const { path, label, fromDefault } = o;
  const holdsRecords = own !== undefined && own.byLine.size > 0;
  if (holdsRecords && !o.inPlace) {
    const byDefault = label === 'the journal';
    throw new UsageError(
      `${byDefault ? 'an earlier run of this input kept' : `${label} ${path} is`} a journal holding records (${journalCounts(own.byLine)}${byDefault ? `: ${path}` : ''}); continue it with: ${continueWith()} (or remove it to send every record again)`,
    );
  }
  if (fromDefault && fromDefault.others.length > 0 && !holdsRecords) {
    throw new UsageError(
      `${input.label} changed since a run on it stopped (its journal: ${fromDefault.others.join(', ')}); continue that run with --resume <journal> (records are matched by line number), or remove it to start anew`,
    );
  }
}

/** The earlier results must be of this server; an input changed since is matched by line, with a warning. */
async function checkSource(f: Factory, input: ReplayableInput, source: JournalState | undefined, name: string, target: string): Promise<void> {
  const sourceTarget = source?.header?.target;
  if (sourceTarget !== undefined && sourceTarget !== target) {
    throw new UsageError(
      `${name} is the journal of a run against ${sourceTarget}, but this run sends to ${target}: its records say nothing of this server. Use another --results file`,
    );
  }
  if (source?.header && source.header.sha256 !== (await input.digest())) {
    f.info(`warning: ${input.label} changed since the journal was started; records are matched by line number`);
  }
}

/** Starts the journal as a copy of --resume FILE, so the new one alone is complete. */
async function copyInto(f: Factory, input: ReplayableInput, o: Opened, source: JournalState): Promise<void> {
  let text = formatResult(await journalHeader(f, input));
  for (const line of [...source.byLine.keys()].sort((a, b) => a - b)) text += `${source.byLine.get(line)?.text}\n`;
  try {
    o.journal.replaceContents(text);
  } catch (error) {
    throw new CliError('failure', `cannot copy --resume ${o.resumeFile} into ${o.label} ${o.path}: ${storageProblem(error)}; nothing was sent`, {
      code: 'results_not_written',
      cause: error,
    });
  }
  f.info(`${o.path}: started from a copy of ${o.resumeFile} (${journalCounts(source.byLine)})`);
}

/** What earlier runs left in the journal just opened, or in the --resume file it starts from. */
async function earlierResults(f: Factory, input: ReplayableInput, o: Opened, continueWith: () => string): Promise<PreparedJournal> {
  const { journal, path, label, resumeFile, inPlace } = o;
  // The journal's own records (none when it is empty or not a regular file); a torn last line is dropped.
  const own = journal.stat.size === 0 || !journal.regular ? undefined : await readJournal(path, label);
  if (own?.torn) f.info(`warning: the last line of ${path} is incomplete (a run was killed mid-write); it is dropped`);
  refuseOthers(o, input, own, continueWith);
  if (own?.torn) journal.cutTo(own.wholeBytes);
  // Into another journal: the earlier one is copied in first, so the new one alone is complete.
  const copy = !inPlace && resumeFile !== undefined && journal.regular;
  const source = inPlace ? own : resumeFile !== undefined ? await readJournal(resumeFile, '--resume', copy) : undefined;
  if (inPlace && !(own && own.byLine.size > 0)) f.info(`nothing to resume in ${path}: every record will be sent`);
  await checkSource(f, input, source, inPlace ? path : `--resume ${resumeFile}`, o.target);
  if (copy && source) await copyInto(f, input, o, source);
  return { journal, earlier: source?.byLine, inPlace: inPlace || copy, label: `${label} ${path}` };
}

/** Which journal a run keeps and what earlier runs left in it; refuses (exit 2) one holding records without --resume, of another server, or of an edited input. */
export async function prepareJournal(f: Factory, o: JournalChoice, input: ReplayableInput, continueWith: () => string): Promise<PreparedJournal> {
  const resumeFile = typeof o.resume === 'string' ? o.resume : undefined;
  if (resumeFile !== undefined && !existsSync(resumeFile)) throw new UsageError(`--resume ${resumeFile} does not exist`);
  if (o.dryRun) return dryRunJournal(f, o, input, resumeFile);

  const target = (await f.target()).baseUrl;
  const fromDefault = o.resultsPath === undefined && resumeFile === undefined ? await defaultPath(f, input) : undefined;
  const path = o.resultsPath ?? resumeFile ?? (fromDefault?.path as string);
  const label = o.resultsPath !== undefined ? '--results' : resumeFile !== undefined ? '--resume' : 'the journal';
  const journal = await Journal.open(path, { input: input.identity, inputLabel: input.absPath === '-' ? '--file -, stdin' : `--file ${o.file}`, label });
  try {
    if (fromDefault) f.info(`journal: ${path}`);
    const inPlace = o.resume !== undefined && (resumeFile === undefined || sameFile(journal.stat, resumeFile));
    return await earlierResults(f, input, { journal, path, label, resumeFile, fromDefault, inPlace, target }, continueWith);
  } catch (error) {
    journal.abandon();
    throw error;
  }
}

/** The journal's first line: what is sent where, so a resume against another input or server is noticed. */
export async function journalHeader(f: Factory, input: ReplayableInput): Promise<JournalHeader> {
  return {
    journal: 'petstore pets add',
    version: 1,
    input: input.absPath,
    sha256: await input.digest(),
    target: (await f.target()).baseUrl,
    started: new Date(f.clock.now()).toISOString(),
  };
}

/** A readable, safe file-name part from the input's name. */
function slug(input: string): string {
  if (input === '-') return 'stdin';
  const name = basename(input)
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .slice(0, 40);
  return name === '' || name.startsWith('.') ? `input${name}` : name;
}

interface DefaultJournal {
  path: string;
  /** Unfinished journals of the same input path and server with other contents: continuing one must be asked for by name (records match by line). */
  others: string[];
}

const short = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 12);

/** The journal kept without --results: in <state>/journals, named by the input, a key of its path and server (staging is another run), and its contents. */
export async function defaultPath(f: Factory, input: ReplayableInput): Promise<DefaultJournal> {
  const [{ stateDir }, target, sha256] = await Promise.all([import('../config/paths.js'), f.target(), input.digest()]);
  const dir = join(stateDir(f.env), 'journals');
  try {
    makeDir(dir, 0o700);
  } catch (error) {
    throw new UsageError(`cannot make the journal folder ${dir}: ${storageProblem(error)}; set PETSTORE_STATE_DIR, or pass --results <file>`);
  }
  const prefix = `${slug(input.absPath)}.${short(`${target.baseUrl}\n${input.absPath}`)}.`;
  const path = join(dir, `${prefix}${sha256.slice(0, 12)}.ndjson`);
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
