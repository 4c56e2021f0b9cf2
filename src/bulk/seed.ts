import { CliError, InterruptedError, PartialFailureError, StdoutClosedError, UsageError } from '../errors/errors.js';
import type { Factory } from '../factory.js';
import type { ApiClient } from '../http/api-client.js';
import type { ApiResponse } from '../transport/exchange.js';
import { sendNewPet } from '../api/pets.js';
import { terminalJsonWriter } from '../output/json-terminal.js';
import { confirm, noPromptReason } from '../prompt/confirm.js';
import { openInput, type ReplayableInput } from './input.js';
import { JournalWriteError, type Journal } from './journal.js';
import { earlierVerdict, type EarlierResult } from './journal-read.js';
import { journalHeader, prepareJournal, type PreparedJournal } from './journal-setup.js';
import { runPool } from './pool.js';
import { Progress } from './progress.js';
import { storageProblem } from '../io/storage-problem.js';
import { StdoutLines } from './result-sink.js';
import { HeldLines } from './held-lines.js';
import { readRecordBatches, readRecords, type InputRecord } from './read-records.js';
import { formatResult, sameRecord, type ResultLine, type ResultStatus, type WouldCreateLine } from './results.js';
import { answered, outcome, retries, stillUnknown, unanswered, type SendOne, type Written } from './outcomes.js';
import { noAnswer, SilenceWatch } from './silence.js';

export interface SeedOptions {
  file: string;
  format: string | undefined;
  skipInvalid: boolean;
  dryRun: boolean;
  concurrency: number;
  resultsPath: string | undefined;
  /** --resume FILE, --resume alone (true: continue this run's own journal), or not given. */
  resume: string | true | undefined;
  /** Resend unknown records: all (true), none (false), or those at these input lines. */
  retryUnknown: boolean | ReadonlySet<number>;
  yes: boolean;
  /** ndjson: one result line per record on stdout (unless --results); table: a summary table on stdout. */
  output: 'ndjson' | 'table';
  /** false (--no-headers): the summary table without its header line. */
  headers?: boolean;
  /** After Ctrl-C, how long requests in flight may take to finish before they are abandoned. */
  graceMs: number;
}

type Counts = Record<ResultStatus | 'would_create', number>;

/** An input up to this size keeps its records from the check to the sending, read and parsed once (the `seed` floor: bench/README.md). */
const KEEP_BYTES = 1024 * 1024;

interface Plan {
  total: number;
  toSend: number;
  invalid: number;
  mismatched: number;
}

/** Pass 1's word on one record: counted, its problems or a mismatch with the journal on stderr; true when the plan takes it in. */
function planRecord(f: Factory, o: SeedOptions, plan: Plan, rec: InputRecord, earlier: Map<number, EarlierResult> | undefined): boolean {
  plan.total++;
  if (!rec.check.ok) {
    plan.invalid++;
    for (const problem of rec.check.problems) f.io.stderr.write(`${o.skipInvalid ? 'skipping ' : ''}line ${rec.line}: ${problem}\n`);
    return true;
  }
  const prior = earlier?.get(rec.line);
  const verdict = earlierVerdict(prior, retries(o.retryUnknown, rec.line));
  if (verdict === 'skip' && !sameRecord(prior?.pet as NonNullable<EarlierResult['pet']>, rec.check.pet)) {
    plan.mismatched++;
    f.io.stderr.write(`line ${rec.line}: differs from the pet the journal records as created at this line; was the input edited?\n`);
    return false;
  }
  if (verdict === 'send') plan.toSend++;
  return true;
}

/** Pass 1: every record checked (and matched against the --resume file) before anything is sent; `each` sees those the plan takes. */
async function validate(
  f: Factory,
  input: ReplayableInput,
  { earlier, label }: PreparedJournal,
  o: SeedOptions,
  each?: (rec: InputRecord) => void,
): Promise<Plan> {
  const plan: Plan = { total: 0, toSend: 0, invalid: 0, mismatched: 0 };
  try {
    for await (const batch of readRecordBatches(input.open(), input.format, f.signal)) {
      for (const rec of batch) if (planRecord(f, o, plan, rec, earlier)) each?.(rec);
    }
  } catch (error) {
    // Ctrl-C before anything was sent or listed: say so, and how far the check had come.
    if (!(error instanceof InterruptedError)) throw error;
    const nothing = o.dryRun ? 'nothing was listed' : 'nothing was sent';
    throw new InterruptedError(`interrupted while checking the records (${plan.total} read); ${nothing}`, { signal: error.signal });
  }
  if (plan.mismatched > 0) {
    throw new UsageError(`${plan.mismatched} records in ${input.label} do not match ${label}; nothing was sent`);
  }
  if (plan.invalid > 0 && !o.skipInvalid) {
    throw new UsageError(
      `${plan.invalid} of ${plan.total} records in ${input.label} are invalid (listed above); nothing was sent. Fix them, or pass --skip-invalid to send the valid ones`,
    );
  }
  return plan;
}

/** The counts a run's summary line and table show, in order. */
const summaryStatuses = (dryRun: boolean): (keyof Counts)[] =>
  dryRun ? ['would_create', 'skipped', 'invalid', 'unknown'] : ['created', 'failed', 'unknown', 'skipped', 'invalid'];

function summaryLine(c: Counts, elapsedMs: number, requests: number, dryRun: boolean): string {
  const seconds = elapsedMs / 1000;
  const parts = summaryStatuses(dryRun).map((s) => `${s.replace('_', ' ')} ${c[s]}`);
  const rate = dryRun ? '' : `, ${(requests / Math.max(seconds, 0.001)).toFixed(1)} requests/s`;
  return `${dryRun ? 'dry run: ' : ''}${parts.join(', ')} in ${seconds.toFixed(1)}s${rate}`;
}

async function printSummaryTable(f: Factory, c: Counts, dryRun: boolean, headers: boolean): Promise<void> {
  const { renderTable } = await import('../output/table.js');
  const rows = summaryStatuses(dryRun).map((s) => [{ text: s }, { text: String(c[s]) }]);
  f.io.stdout.write(await renderTable({ tty: f.io.stdoutIsTTY, color: f.io.colorStdout, columns: f.io.columns, headers }, ['status', 'count'], rows));
}

/** Result lines go to stdout unless --results takes them or -o table shows only the counts. */
const resultsOnStdout = (o: SeedOptions) => o.output === 'ndjson' && o.resultsPath === undefined;

/** A result line (or many) as stdout takes it: on a terminal escaped, and coloured with colour on, as `-o json` is. */
type Shown = (text: string) => string;

export async function seed(f: Factory, o: SeedOptions): Promise<void> {
  const input = await openInput(o.file, o.format, f.io);
  try {
    const prepared = await prepareJournal(f, o, input, () => continueCommand(f, o));
    const shown: Shown = f.io.stdoutIsTTY ? await terminalJsonWriter(f.io.colorStdout) : (text) => text;
    const listing = o.dryRun ? dryListing(f, o, prepared, shown) : undefined;
    const kept: InputRecord[] | undefined = !o.dryRun && input.size <= KEEP_BYTES ? [] : undefined;
    try {
      const plan = await validate(f, input, prepared, o, listing?.take ?? (kept && ((rec) => void kept.push(rec))));
      if (!o.dryRun) await confirmProduction(f, o, plan);
      if (prepared.journal) await startJournal(f, prepared.journal, input, prepared.label);
      // The held lines all written down, or dropped (they could not be): then pass 2 lists the records.
      listing?.held?.end();
      const records = () => kept ?? readRecords(input.open(), input.format);
      await send(f, o, records, prepared, plan, shown, listing?.held?.failed ? undefined : listing);
    } finally {
      listing?.held?.dispose();
      // Stopped before sending (invalid records, no confirmation): a journal it created is removed.
      prepared.journal?.abandon();
      // Stopped before the sending loop took the journal over (no client could be built): released.
      await prepared.journal?.close();
    }
  } finally {
    input.dispose();
  }
}

async function startJournal(f: Factory, journal: Journal, input: ReplayableInput, label: string): Promise<void> {
  const header = await journalHeader(f, input);
  try {
    journal.start(formatResult(header));
  } catch (error) {
    throw new CliError('failure', `cannot write ${label}: ${storageProblem((error as JournalWriteError).cause ?? error)}; nothing was sent`, {
      code: 'results_not_written',
      cause: error,
    });
  }
}

async function confirmProduction(f: Factory, o: SeedOptions, plan: Plan): Promise<void> {
  const target = await f.target();
  if (target.envName !== 'production' || o.yes || plan.toSend === 0) return;
  const what = `${plan.toSend} ${plan.toSend === 1 ? 'pet' : 'pets'} in the production environment (${target.baseUrl})`;
  if (!f.io.canPrompt) {
    throw new UsageError(`refusing to create ${what} without confirmation: pass --yes (${noPromptReason(f.io, f.globals.input)})`);
  }
  if (!(await confirm({ stdin: f.io.stdin, stderr: f.io.stderr.stream }, `Create ${what}?`, f.signal))) {
    throw new UsageError('not confirmed; nothing was sent');
  }
}

/** The results so far, counted; each one's line for stdout and the journal. */
class Tally {
  readonly counts: Counts = { created: 0, skipped: 0, failed: 0, unknown: 0, invalid: 0, not_created: 0, would_create: 0 };
  /** The first unknowns' input lines, for the closing message. */
  readonly unknownLines: number[] = [];
  done = 0;

  /** Counts a result; returns its line, not yet masked (server text may echo a key: f.redact). */
  line(result: ResultLine | WouldCreateLine): string {
    this.counts[result.status]++;
    if (result.status === 'unknown' && this.unknownLines.length <= 20) this.unknownLines.push(result.line);
    this.done++;
    return formatResult(result);
  }
}

/** A dry run's results, made during pass 1 (`take`) and held until every record has passed; no `held` with -o table (counts only). */
function dryListing(f: Factory, o: SeedOptions, prepared: PreparedJournal, shown: Shown) {
  const tally = new Tally();
  // Masked and shown as send() does each line, but a block at a time: a mask never spans two lines.
  const held = resultsOnStdout(o) ? new HeldLines((lines) => shown(f.redact(lines))) : undefined;
  const take = (rec: InputRecord): void => {
    if (held?.failed) return;
    const text = tally.line((outcome(rec, o.retryUnknown, prepared, undefined) as Written).result);
    held?.add(text);
  };
  return { tally, held, startedAt: f.clock.now(), take };
}

type DryListing = ReturnType<typeof dryListing>;

/** Ctrl-C, a failed journal write, a silent server or a gone stdout reader stop new requests (`stop`); those in flight get graceMs. */
function stopping(f: Factory, toStdout: boolean, journal: Journal | undefined, graceMs: number) {
  const stop = new AbortController();
  const inflight = new AbortController();
  const outside = AbortSignal.any(toStdout ? [f.signal, f.io.stdout.failed] : [f.signal]);
  if (outside.aborted) stop.abort();
  else outside.addEventListener('abort', () => stop.abort(), { once: true });
  journal?.onFailure(() => stop.abort());
  stop.signal.addEventListener('abort', () => setTimeout(() => inflight.abort(new InterruptedError()), graceMs).unref(), { once: true });
  return { stop, inflight, stopped: () => stop.signal.aborted };
}

/** Creates one pet: its result line, or the error that stops the run. */
function sender(f: Factory, client: ApiClient, journal: Journal | undefined, inflight: AbortSignal, silence: SilenceWatch): SendOne {
  return async (line, { pet }, resent) => {
    let journaled = false;
    let sentAt = 0;
    const beforeSend = () => {
      sentAt = f.clock.now();
      if (journaled || !journal) return;
      journal.sending(formatResult({ line, status: 'sending' }));
      journaled = true;
    };
    const attempt = async (): Promise<ResultLine> => {
      let res: ApiResponse;
      try {
        res = await sendNewPet(client, pet, beforeSend);
      } catch (error) {
        if (noAnswer(error)) silence.unanswered(sentAt);
        return unanswered(error, line, pet, inflight);
      }
      silence.answered();
      return answered(client, line, pet, res, resent);
    };
    try {
      return { result: await attempt(), journal: true };
    } catch (error) {
      // Journaled as in flight, then proven not created (a 401, a refused connection...): say so, or
      // --resume would take it for unknown. A resent unknown stays unknown (stillUnknown).
      if (journaled) {
        const reason = (error as Error).message;
        const proven = resent ? stillUnknown(line, pet, `this attempt was not processed (${reason})`) : { line, status: 'not_created' as const, reason };
        journal?.outcome(f.redact(formatResult(proven)));
      }
      throw error;
    }
  };
}

/** How a run ended, for the closing messages. */
interface RunEnd {
  tally: Tally;
  total: number;
  toStdout: boolean;
  /** The error that stopped the sending, if any (not an interruption, not a journal write). */
  fatal: unknown;
  /** The command that continues the run (none for a dry run: its continuation would send). */
  resume: string | undefined;
}

/** The records pass 2 goes through: those pass 1 kept, or the input read again. */
type Records = () => Iterable<InputRecord> | AsyncIterable<InputRecord>;

/** Pass 2's one loop: each record's outcome, as many at once as --concurrency allows; returns the error that stopped it, if any. */
async function eachOutcome(
  records: Records,
  o: SeedOptions,
  prepared: PreparedJournal,
  { send, stopped, record }: { send: SendOne | undefined; stopped: () => boolean; record: (written: Written) => Promise<void> | undefined },
): Promise<unknown> {
  let fatal: unknown;
  await runPool(
    records(),
    { concurrency: o.concurrency, stopped },
    (rec) => outcome(rec, o.retryUnknown, prepared, send),
    (_rec, done) => {
      // Not sent (a wait was interrupted, the run is stopping): no result line, so --resume sends it later.
      if (done.ok) return record(done.value);
      if (!(done.error instanceof InterruptedError) && !(done.error instanceof JournalWriteError)) fatal ??= done.error;
    },
  );
  return fatal;
}

/** Pass 2: sends (or, with --dry-run, lists) the records; each outcome is journaled and printed the moment it is known. */
async function send(f: Factory, o: SeedOptions, records: Records, prepared: PreparedJournal, plan: Plan, shown: Shown, listed?: DryListing): Promise<void> {
  const { journal } = prepared;
  const tally = listed?.tally ?? new Tally();
  // A dry run whose lines were made during pass 1 took its time there.
  const started = listed?.startedAt ?? f.clock.now();
  const toStdout = resultsOnStdout(o);
  const stop = stopping(f, toStdout, journal, o.graceMs);
  const progress = new Progress(f.io, f.clock, f.io.spinner && !o.dryRun, f.globals.quiet);
  const client =
    o.dryRun || plan.toSend === 0
      ? undefined
      : await f.newClient({
          transportSignal: stop.inflight.signal,
          waitSignal: stop.stop.signal,
          onWait: progress.announce,
          // The transport's bulk engine, whose loading only a long run pays back.
          ...(plan.toSend >= 500 ? { bulk: { connections: o.concurrency } } : {}),
        });
  const stdout = toStdout ? new StdoutLines(f.io.stdout, f.io.stdoutIsTTY ? progress.aboveLine : undefined) : undefined;
  // A server gone silent stops the run as a refused connection does: the records not sent are kept for --resume.
  const silence = new SilenceWatch(f.clock, () => stop.stop.abort());
  const send = client ? sender(f, client, journal, stop.inflight.signal, silence) : undefined;
  let fatal: unknown;

  /** Counts, journals and prints one result; a promise only when stdout asks the run to wait (it is full). */
  const record = ({ result, journal: append }: Written): Promise<void> | undefined => {
    const text = f.redact(tally.line(result));
    if (append) journal?.outcome(text);
    const waiting = stdout?.write(shown(text));
    progress.update({ done: tally.done, total: plan.total, startedAt: started, quota: client?.lastQuota });
    return waiting;
  };

  try {
    // A dry run whose pass 1 made every line: copied to stdout as they are (none with -o table).
    if (listed?.held && stdout) tally.done = await listed.held.copyTo(stdout, stop.stopped);
    else if (!listed) fatal = await eachOutcome(records, o, prepared, { send, stopped: stop.stopped, record });
    fatal ??= client && silence.error(client.transport.baseUrl);
    // Through the whole input: a later run on this journal can tell it apart from one that stopped.
    if (journal && !stop.stopped() && fatal === undefined && journal.failure === undefined) {
      journal.outcome(formatResult({ finished: new Date(f.clock.now()).toISOString() }));
    }
  } finally {
    stdout?.flush();
    progress.clear();
    await journal?.close();
  }

  f.info(summaryLine(tally.counts, f.clock.now() - started, client?.requestCount ?? 0, o.dryRun));
  await closeRun(f, o, prepared, { tally, total: plan.total, toStdout, fatal, resume: o.dryRun ? undefined : continueCommand(f, o) });
}

/** After pass 2 and its summary line: the error the run ends with, if any. */
async function closeRun(f: Factory, o: SeedOptions, prepared: PreparedJournal, end: RunEnd): Promise<void> {
  throwIfNotWritten(f, o, prepared, end);
  if (o.output === 'table' && !f.io.stdout.failed.aborted) await printSummaryTable(f, end.tally.counts, o.dryRun, o.headers !== false);
  throwIfStopped(f, o, end);
  throwIfNotAllCreated(o, end);
}

/** A journal line or stdout that could not be written (the reader of stdout leaving aside): the run's error. */
function throwIfNotWritten(f: Factory, o: SeedOptions, prepared: PreparedJournal, end: RunEnd): void {
  const { journal, label } = prepared;
  const progressText = `${end.tally.done} of ${end.total}`;
  if (journal?.failure !== undefined) throw journalNotWritten(f, journal, label, end.toStdout, progressText, end.resume);
  const stdoutError: unknown = end.toStdout && f.io.stdout.failed.aborted ? f.io.stdout.failed.reason : undefined;
  if (stdoutError === undefined || (stdoutError as NodeJS.ErrnoException).code === 'EPIPE') return;
  throw new CliError(
    'failure',
    o.dryRun
      ? `cannot write the results to stdout: ${storageProblem(stdoutError)}; the dry run stopped after listing ${progressText} records`
      : `cannot write the results to stdout: ${storageProblem(stdoutError)}; stopped sending after ${progressText} records (every outcome is in ${label})`,
    { code: 'results_not_written', cause: stdoutError, hint: end.resume },
  );
}

/** Ctrl-C, an error that stopped the sending, or a reader of stdout that left before the end: the run's error. */
function throwIfStopped(f: Factory, o: SeedOptions, { tally: { done }, total, toStdout, fatal, resume }: RunEnd): void {
  // Interrupted first: whatever else stopped the run meanwhile, the user pressed Ctrl-C; this says how to go on.
  if (f.signal.aborted) throw new InterruptedError(`interrupted after ${done} of ${total} records${resume ? `; continue with: ${resume}` : ''}`);
  if (fatal instanceof CliError) {
    throw new CliError(fatal.kind, `${fatal.message}; stopped after ${done} of ${total} records`, {
      code: fatal.code,
      status: fatal.status,
      // A rate-limit give-up says when to try again (advice); the command to do so is this run's continuation.
      advice: fatal.advice,
      hint: fatal.hint ?? resume,
    });
  }
  if (fatal !== undefined) throw fatal;
  // `| head -1`: the reader has what it wanted, but the records after it were not sent (exit 141).
  const readerLeft = toStdout && (f.io.stdout.failed.reason as NodeJS.ErrnoException | undefined)?.code === 'EPIPE';
  if (!readerLeft || done >= total) return;
  throw new StdoutClosedError(
    o.dryRun
      ? `stdout was closed (its reader exited): the dry run stopped after listing ${done} of ${total} records`
      : `stdout was closed (its reader exited): stopped after ${done} of ${total} records; the others were not sent`,
    { hint: resume },
  );
}

/** Exit 1 when any record was not created (a dry run: would not be), naming the unknown ones' lines. */
function throwIfNotAllCreated(o: SeedOptions, { tally: { counts, unknownLines }, total }: RunEnd): void {
  const notCreated = counts.failed + counts.unknown + counts.invalid;
  if (notCreated === 0) return;
  const lines = unknownLines.sort((a, b) => a - b);
  const unknownAt =
    lines.length === 0
      ? ''
      : `; unknown at ${lines.length === 1 ? 'line' : 'lines'} ${lines.slice(0, 20).join(', ')}${counts.unknown > 20 ? ', …' : ''}: check whether they exist, and send the missing ones with --resume --retry-unknown <lines>`;
  // A dry run created nothing and failed nothing: it says what a run would leave out.
  const left = o.dryRun
    ? `would not be created (unknown ${counts.unknown}, invalid ${counts.invalid})`
    : `were not created (failed ${counts.failed}, unknown ${counts.unknown}, invalid ${counts.invalid})`;
  throw new PartialFailureError(`${notCreated} of ${total} records ${left}; see the results${unknownAt}`);
}

/**
 * A journal line could not be written (a full disk): sending stopped, and no record was sent without its
 * in-flight line. The outcome lines the journal could not take go to stdout, to be appended once there is room.
 */
function journalNotWritten(f: Factory, journal: Journal, label: string, onStdout: boolean, progress: string, resume: string | undefined): CliError {
  const lines = journal.unwritten;
  const count = lines.split('\n').length - 1;
  if (!onStdout) f.io.stdout.write(lines);
  const where =
    count === 0
      ? ''
      : `; the ${count} outcome ${count === 1 ? 'line' : 'lines'} it could not take ${count === 1 ? 'is' : 'are'} on stdout: append ${count === 1 ? 'it' : 'them'} to ${journal.path} once there is room, or --resume reports ${count === 1 ? 'that record' : 'those records'} as unknown`;
  return new CliError('failure', `cannot write ${label}: ${storageProblem(journal.failure)}; stopped sending after ${progress} records${where}`, {
    code: 'results_not_written',
    cause: journal.failure,
    hint: resume,
  });
}

/** Single quotes for anything a shell would read differently. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The command that continues this run's journal (same input, server, settings, with --resume); never --retry-unknown: unknowns are checked first. */
function continueCommand(f: Factory, o: SeedOptions): string {
  const words = ['petstore'];
  if (f.globals.env !== undefined) words.push('--env', f.globals.env);
  words.push('pets', 'add', '--file', o.file);
  if (o.format !== undefined) words.push('--format', o.format);
  if (o.resultsPath !== undefined) words.push('--results', o.resultsPath, '--resume');
  else if (typeof o.resume === 'string') words.push('--resume', o.resume);
  else words.push('--resume');
  words.push('--concurrency', String(o.concurrency));
  if (o.skipInvalid) words.push('--skip-invalid');
  if (o.yes) words.push('--yes');
  if (o.output === 'table') words.push('-o', 'table');
  const command = words.map(shellWord).join(' ');
  return o.file === '-' ? `${command} (with the same records on stdin)` : command;
}
