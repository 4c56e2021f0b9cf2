import { CliError, InterruptedError, MalformedResponseError, PartialFailureError, StdoutClosedError, UsageError } from '../errors/errors.js';
import type { Factory } from '../factory.js';
import type { ApiClient } from '../http/api-client.js';
import type { WaitAnnouncer } from '../ratelimit/wait-announcer.js';
import type { ApiResponse } from '../transport/exchange.js';
import { isOutcomeUnknown } from '../http/outcome.js';
import { describeResponse, errorForResponse } from '../api/errors.js';
import { sendNewPet } from '../api/pets.js';
import { apiErrorBody } from '../http/error-body.js';
import { TransportError } from '../transport/errors.js';
import { toPet, type NewPet } from '../pets/pet.js';
import type { PetCheck } from './new-pet-record.js';
import { firstValue } from '../wire/headers.js';
import { terminalJsonWriter } from '../output/json-terminal.js';
import { confirm, noPromptReason } from '../prompt/confirm.js';
import { openInput, type ReplayableInput } from './input.js';
import { continueCommand } from './continue-command.js';
import { JournalWriteError, type Journal } from './journal.js';
import { earlierVerdict, outcomeUnknown, type EarlierResult } from './journal-read.js';
import { journalHeader, prepareJournal, type PreparedJournal } from './journal-setup.js';
import { runPool } from './pool.js';
import { Progress } from './progress.js';
import { storageProblem } from '../io/storage-problem.js';
import { StdoutLines } from './result-sink.js';
import { HeldLines } from './held-lines.js';
import { forEachRecord, readRecords, recordsOf, type InputRecord } from './read-records.js';
import { formatResult, sameRecord, sendingLine, type ResultLine, type ResultStatus, type WouldCreateLine } from './results.js';

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

interface Plan {
  total: number;
  toSend: number;
  invalid: number;
  mismatched: number;
  /** Every record, as pass 1 read them, when the input is small (KEEP_BYTES, KEEP_RECORDS): pass 2 sends these instead of reading it again. */
  kept: InputRecord[] | undefined;
}

/**
 * The most input pass 1 keeps for pass 2. Reading and checking a record again was ~1 % of a 5,000-record
 * run (issue #18); kept, they cost memory, so only a small input is kept: a record's strings may hold on
 * to the whole chunk of text they were read from, so the input's size is bounded, and the count too.
 */
const KEEP_BYTES = 4 * 1024 * 1024;
const KEEP_RECORDS = 50_000;

/** The records pass 2 goes through: those pass 1 kept, or the input read again. */
function pass2Records(input: ReplayableInput, plan: Plan) {
  return plan.kept ? recordsOf(plan.kept) : readRecords(input.open(), input.format);
}

const retries = (o: SeedOptions, line: number): boolean => (typeof o.retryUnknown === 'boolean' ? o.retryUnknown : o.retryUnknown.has(line));

/**
 * Pass 1: every record checked (and the --resume file matched against the input) before anything is
 * sent. `each` sees every record the plan takes in (a dry run lists them as it goes: DryListing).
 */
async function validate(
  f: Factory,
  input: ReplayableInput,
  earlier: Map<number, EarlierResult> | undefined,
  label: string,
  o: SeedOptions,
  each?: (rec: InputRecord) => void,
): Promise<Plan> {
  const plan: Plan = { total: 0, toSend: 0, invalid: 0, mismatched: 0, kept: input.size <= KEEP_BYTES ? [] : undefined };
  await forEachRecord(readRecords(input.open(), input.format, f.signal), (rec) => {
    plan.total++;
    if (plan.kept && plan.kept.push(rec) > KEEP_RECORDS) plan.kept = undefined;
    if (!rec.check.ok) {
      plan.invalid++;
      for (const problem of rec.check.problems) f.io.stderr.write(`${o.skipInvalid ? 'skipping ' : ''}line ${rec.line}: ${problem}\n`);
      each?.(rec);
      return;
    }
    const prior = earlier?.get(rec.line);
    const verdict = earlierVerdict(prior, retries(o, rec.line));
    if (verdict === 'skip' && !sameRecord(prior!.pet!, rec.check.pet)) {
      plan.mismatched++;
      f.io.stderr.write(`line ${rec.line}: differs from the pet the journal records as created at this line; was the input edited?\n`);
      return;
    }
    if (verdict === 'send') plan.toSend++;
    each?.(rec);
  }).catch((error: unknown) => {
    // Ctrl-C before anything was sent or listed: say so, and how far the check had come.
    if (!(error instanceof InterruptedError)) throw error;
    const nothing = o.dryRun ? 'nothing was listed' : 'nothing was sent';
    throw new InterruptedError(`interrupted while checking the records (${plan.total} read); ${nothing}`, { signal: error.signal });
  });
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

function errorSummary(res: ApiResponse): { code: string; message: string; status: number } {
  const body = apiErrorBody(res);
  if (body) return { code: body.code, message: body.message, status: res.status };
  return { code: `http_${res.status}`, message: describeResponse(res).message, status: res.status };
}

/**
 * The statuses that say the server rejected the request, so the pet was surely not created: "failed".
 * Any other answer that is not a created pet proves nothing (a 3xx, whose POST is not followed and may
 * have been processed first; a 5xx; a 408, 425 or an unfamiliar 4xx from whatever stands in between),
 * so the record is "unknown" and never resent without --retry-unknown. 401, 403 and 429 stop the run.
 */
const REJECTED: ReadonlySet<number> = new Set([400, 404, 405, 407, 409, 410, 411, 413, 414, 415, 422, 431]);

/** Why an answer leaves the outcome unknown, for the result line. */
function unknownReason(res: ApiResponse): string {
  const what = describeResponse(res).message;
  if (res.status >= 500) return `server error (${what}): it may or may not have been created`;
  if (res.status >= 300 && res.status < 400) {
    const to = firstValue(res.headers.location);
    return `redirected (${what}${to ? `, to ${to}` : ''}); a POST is not followed, and it may or may not have been created`;
  }
  return `${what}, not an answer that rejects the record: it may or may not have been created`;
}

/**
 * A record resent with --retry-unknown that this attempt did not create (rejected, or stopped before
 * an answer): the earlier attempt may still have, so it stays unknown. As failed or not created, the
 * next --resume would send it again without being asked.
 */
function stillUnknown(line: number, pet: NewPet, why: string): ResultLine {
  return {
    line,
    status: 'unknown',
    reason: `resent with --retry-unknown, and ${why}; the earlier attempt may still have created it: check whether it exists`,
    record: pet,
  };
}

/** The result line of an answer to a create, or the error that stops the whole run. `resent`: its earlier outcome is unknown. */
function answered(client: ApiClient, line: number, pet: NewPet, res: ApiResponse, resent: boolean): ResultLine {
  if (res.status >= 200 && res.status < 300) {
    const created = toPet(res.json);
    if (created) return { line, status: 'created', pet: created };
    return { line, status: 'unknown', reason: `HTTP ${res.status} with a malformed body: probably created; check before resending`, record: pet };
  }
  // Every later record would fail the same way: stop instead of reporting thousands of failures.
  if (res.status === 401 || res.status === 403 || res.status === 429) throw errorForResponse(res, client.ctx);
  if (REJECTED.has(res.status)) {
    if (!resent) return { line, status: 'failed', error: errorSummary(res) };
    const { code, message } = errorSummary(res);
    return stillUnknown(line, pet, `this attempt was rejected (HTTP ${res.status} ${code}: ${message})`);
  }
  return { line, status: 'unknown', reason: unknownReason(res), record: pet };
}

/** The result line of a create that got no answer and may have reached the server; otherwise the error is thrown on. */
function unanswered(error: unknown, line: number, pet: NewPet, inflight: AbortSignal): ResultLine {
  if (isOutcomeUnknown(error)) return { line, status: 'unknown', reason: error.message, record: pet };
  if (error instanceof InterruptedError && inflight.aborted) {
    return { line, status: 'unknown', reason: 'interrupted while the request was in flight: it may or may not have been created', record: pet };
  }
  if (error instanceof TransportError && error.sent) {
    return { line, status: 'unknown', reason: error.message, record: pet };
  }
  // An answer too big to read (its status unread): the request was sent and may have been processed.
  if (error instanceof MalformedResponseError) {
    return { line, status: 'unknown', reason: `${error.message}: it may or may not have been created`, record: pet };
  }
  throw error;
}

function summaryLine(c: Counts, elapsedMs: number, requests: number, dryRun: boolean): string {
  const seconds = elapsedMs / 1000;
  const parts = dryRun
    ? [`would create ${c.would_create}`, `skipped ${c.skipped}`, `invalid ${c.invalid}`, `unknown ${c.unknown}`]
    : [`created ${c.created}`, `failed ${c.failed}`, `unknown ${c.unknown}`, `skipped ${c.skipped}`, `invalid ${c.invalid}`];
  const rate = dryRun ? '' : `, ${(requests / Math.max(seconds, 0.001)).toFixed(1)} requests/s`;
  return `${dryRun ? 'dry run: ' : ''}${parts.join(', ')} in ${seconds.toFixed(1)}s${rate}`;
}

async function printSummaryTable(f: Factory, c: Counts, dryRun: boolean, headers: boolean): Promise<void> {
  const { renderTable } = await import('../output/table.js');
  const statuses: (keyof Counts)[] = dryRun ? ['would_create', 'skipped', 'invalid', 'unknown'] : ['created', 'failed', 'unknown', 'skipped', 'invalid'];
  const rows = statuses.map((s) => [{ text: s }, { text: String(c[s]) }]);
  f.io.stdout.write(await renderTable({ tty: f.io.stdoutIsTTY, color: f.io.colorStdout, columns: f.io.columns, headers }, ['status', 'count'], rows));
}

/** A result line (or many) as stdout takes it: on a terminal escaped, and coloured with colour on, as `-o json` is. */
type Shown = (text: string) => string;

export async function seed(f: Factory, o: SeedOptions): Promise<void> {
  const input = await openInput(o.file, o.format, f.io);
  try {
    const prepared = await prepareJournal(f, o, input, () => continueCommand(f, o));
    const shown: Shown = f.io.stdoutIsTTY ? await terminalJsonWriter(f.io.colorStdout) : (text) => text;
    const listing = o.dryRun ? new DryListing(f, o, prepared, shown) : undefined;
    try {
      const plan = await validate(f, input, prepared.earlier, prepared.label, o, listing?.take);
      if (!o.dryRun) await confirmProduction(f, o, plan);
      if (prepared.journal) await startJournal(f, prepared.journal, input, prepared.label);
      await send(f, o, input, prepared, plan, shown, listing?.finish() ? listing : undefined);
    } finally {
      listing?.dispose();
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
  if (!(await confirm({ stdin: f.io.stdin, stderr: f.io.stderr }, `Create ${what}?`, f.signal))) {
    throw new UsageError('not confirmed; nothing was sent');
  }
}

/** What a run writes for one record: its result line, or nothing (in place, a line already in the journal). */
interface Written {
  result: ResultLine | WouldCreateLine;
  /** Append to the journal (false: the journal already says it). */
  journal: boolean;
}

/** The results so far, counted; each one's line for stdout and the journal. */
class Tally {
  readonly counts: Counts = { created: 0, skipped: 0, failed: 0, unknown: 0, invalid: 0, not_created: 0, would_create: 0 };
  /** The first unknowns' input lines, for the closing message. */
  readonly unknownLines: number[] = [];
  done = 0;

  /**
   * Counts a result; returns its line, not yet masked: server text (an error message, a created pet)
   * may echo a key, so it goes through f.redact before it is kept or printed.
   */
  line(result: ResultLine | WouldCreateLine): string {
    this.counts[result.status]++;
    if (result.status === 'unknown' && this.unknownLines.length <= 20) this.unknownLines.push(result.line);
    this.done++;
    return formatResult(result);
  }
}

/**
 * A record's result when it needs no request (invalid, in an earlier run, a dry run); else `send`
 * sends it (undefined: a dry run, which lists it as would_create).
 */
function outcome(
  rec: InputRecord,
  o: SeedOptions,
  { earlier, inPlace }: PreparedJournal,
  send: ((line: number, check: PetCheck, resent: boolean) => Promise<Written>) | undefined,
): Written | Promise<Written> {
  const prior = earlier?.get(rec.line);
  if (!rec.check.ok) {
    // Edited into an invalid record (--skip-invalid) since an earlier run created it or left it unknown:
    // the journal keeps that word. As "invalid", the next --resume would send the record once it is fixed.
    const keep = earlierVerdict(prior, false) !== 'send';
    return { result: { line: rec.line, status: 'invalid', problems: rec.check.problems }, journal: !keep };
  }
  switch (earlierVerdict(prior, retries(o, rec.line))) {
    case 'skip':
      return { result: { line: rec.line, status: 'skipped', pet: prior?.pet as NonNullable<EarlierResult['pet']> }, journal: !inPlace };
    case 'keep_unknown':
      return {
        result: {
          line: rec.line,
          status: 'unknown',
          reason:
            prior?.status === 'sending'
              ? `in flight when an earlier run stopped: it may or may not have been created; check whether it exists, and if not, rerun with --retry-unknown ${rec.line} to send it`
              : `outcome unknown in an earlier run and not resent: check whether it exists, and if not, rerun with --retry-unknown ${rec.line} to send it`,
          record: rec.check.pet,
        },
        // In place, an unknown is already journaled; an in-flight mark becomes an unknown once.
        journal: !inPlace || prior?.status === 'sending',
      };
    case 'send':
      if (!send) return { result: { line: rec.line, status: 'would_create', record: rec.check.pet, json: rec.check.json }, journal: false };
      return send(rec.line, rec.check, outcomeUnknown(prior));
  }
}

/**
 * A dry run's results, made during pass 1 (`take`, given to validate): its lines are held
 * (HeldLines) and copied to stdout once every record has passed, so the input is read and its lines
 * written once. When the held lines had to be dropped (no room for them: finish() says so), the run
 * lists the records in a second pass.
 */
class DryListing {
  readonly tally = new Tally();
  /** Undefined when the lines do not go to stdout (-o table): the counts are all there is. */
  readonly held: HeldLines | undefined;
  /** When pass 1 began, for the summary's time. */
  readonly startedAt: number;

  constructor(
    f: Factory,
    private readonly o: SeedOptions,
    private readonly prepared: PreparedJournal,
    shown: Shown,
  ) {
    this.startedAt = f.clock.now();
    // Masked and shown as send() does each line, but KBs at a time: a mask never spans two lines (a
    // key's forms hold no line break, and JSON lines hold none but their own), and the search of each
    // line for every form of the key was a third of a million-line dry run.
    this.held = o.output === 'ndjson' && o.resultsPath === undefined ? new HeldLines((lines) => shown(f.redact(lines))) : undefined;
  }

  /** After pass 1: true when the listing holds every record's line (the held lines all written down). */
  finish(): boolean {
    this.held?.end();
    return !this.held?.failed;
  }

  readonly take = (rec: InputRecord): void => {
    const held = this.held;
    if (held?.failed) return;
    const text = this.tally.line((outcome(rec, this.o, this.prepared, undefined) as Written).result);
    held?.add(text);
  };

  dispose(): void {
    this.held?.dispose();
  }
}

/** Pass 2: sends (or, with --dry-run, lists) the records; each outcome is journaled and printed the moment it is known. */
async function send(
  f: Factory,
  o: SeedOptions,
  input: ReplayableInput,
  prepared: PreparedJournal,
  plan: Plan,
  shown: Shown,
  listed?: DryListing,
): Promise<void> {
  const { journal } = prepared;
  const tally = listed?.tally ?? new Tally();
  const { counts, unknownLines } = tally;
  // A dry run whose lines were made during pass 1 took its time there.
  const started = listed?.startedAt ?? f.clock.now();
  // Ctrl-C, a journal line that cannot be written or a stdout whose reader exited stops new requests
  // at once (stop); requests in flight get graceMs to finish, so their outcomes are known.
  const stop = new AbortController();
  const toStdout = o.output === 'ndjson' && o.resultsPath === undefined;
  const stopOn = toStdout ? [f.signal, f.io.stdoutFailed] : [f.signal];
  const onStop = () => stop.abort();
  for (const signal of stopOn) {
    if (signal.aborted) stop.abort();
    signal.addEventListener('abort', onStop, { once: true });
  }
  journal?.onFailure(() => stop.abort());
  const inflight = new AbortController();
  stop.signal.addEventListener('abort', () => setTimeout(() => inflight.abort(new InterruptedError()), o.graceMs).unref(), { once: true });
  const progress = new Progress(f.io, f.clock, f.io.spinner && !o.dryRun, f.globals.quiet);
  const client =
    o.dryRun || plan.toSend === 0
      ? undefined
      : await clientFor(f, { inflight: inflight.signal, stop: stop.signal, onWait: progress.announce }, plan.toSend, o.concurrency);
  const stdout = toStdout
    ? new StdoutLines({ stream: f.io.stdout, failed: f.io.stdoutFailed }, f.io.stdoutIsTTY ? progress.aboveLine : undefined, f.io.stdoutIsTTY)
    : undefined;
  let fatal: unknown;

  /** Creates one pet: its result line, or the error that stops the run. Promise callbacks, not async functions: fewer promises per record (issue #18). */
  const sendOne = (line: number, { pet, json }: PetCheck, resent: boolean): Promise<Written> => {
    const api = client as ApiClient;
    let journaled = false;
    const beforeSend = () => {
      if (journaled || !journal) return;
      journal.sending(sendingLine(line));
      journaled = true;
    };
    return sendNewPet(api, pet, beforeSend, json)
      .then(
        (res) => answered(api, line, pet, res, resent),
        (error: unknown) => unanswered(error, line, pet, inflight.signal),
      )
      .then(
        (result): Written => ({ result, journal: true }),
        (error: unknown) => {
          // Journaled as in flight, then proven not created (a 401, a 429 that stopped the run, a refused
          // connection, Ctrl-C during a retry's wait): say so, or --resume would take it for unknown.
          // A resent unknown stays unknown (stillUnknown).
          if (journaled) {
            const reason = (error as Error).message;
            const proven = resent ? stillUnknown(line, pet, `this attempt was not processed (${reason})`) : { line, status: 'not_created' as const, reason };
            journal?.outcome(f.redact(formatResult(proven)));
          }
          throw error;
        },
      );
  };

  const work = (rec: InputRecord): Written | Promise<Written> => outcome(rec, o, prepared, client ? sendOne : undefined);

  /** Counts, journals and prints one result; a promise only when stdout asks the run to wait (it is full). */
  const record = ({ result, journal: append }: Written): Promise<void> | undefined => {
    const text = f.redact(tally.line(result));
    if (append) journal?.outcome(text);
    const waiting = stdout?.write(shown(text));
    progress.update({ done: tally.done, total: plan.total, startedAt: started, quota: client?.lastQuota });
    return waiting;
  };

  try {
    if (listed) {
      // A dry run whose pass 1 made every line: copied to stdout as they are (none with -o table).
      if (listed.held && stdout) tally.done = await listed.held.copyTo(stdout, () => stop.signal.aborted);
    } else if (!client) {
      // Nothing to send (a dry run, or everything already created): a plain loop, no pool, and no
      // promise per record unless stdout is full (issue #18: a million-line dry run).
      await forEachRecord(pass2Records(input, plan), (rec) => {
        if (stop.signal.aborted) return false;
        const written = work(rec);
        return written instanceof Promise ? written.then(record) : record(written);
      });
    } else {
      await runPool(
        pass2Records(input, plan),
        { concurrency: o.concurrency, stopped: () => stop.signal.aborted },
        // Plain functions, not async ones: an async wrapper costs promises and turns of the microtask
        // queue per record (issue #18).
        (rec) => {
          const written = work(rec);
          return written instanceof Promise ? written : Promise.resolve(written);
        },
        (_rec, outcome) => {
          // Not sent (a wait was interrupted, the run is stopping): no result line, so --resume sends it later.
          if (!outcome.ok) {
            if (!(outcome.error instanceof InterruptedError) && !(outcome.error instanceof JournalWriteError)) fatal ??= outcome.error;
            return undefined;
          }
          return record(outcome.value);
        },
      );
    }
    // Through the whole input: a later run on this journal can tell it apart from one that stopped.
    if (journal && !stop.signal.aborted && fatal === undefined && journal.failure === undefined) {
      journal.outcome(formatResult({ finished: new Date(f.clock.now()).toISOString() }));
    }
  } finally {
    for (const signal of stopOn) signal.removeEventListener('abort', onStop);
    progress.clear();
    await stdout?.flush();
    await journal?.close();
  }

  const elapsed = f.clock.now() - started;
  f.info(summaryLine(counts, elapsed, client?.requestCount ?? 0, o.dryRun));
  const { done } = tally;
  const progressText = `${done} of ${plan.total}`;
  // A dry run has nothing to continue: its continuation (a --resume without --dry-run) would send.
  const resume = o.dryRun ? undefined : continueCommand(f, o);
  if (journal?.failure !== undefined) throw journalNotWritten(f, journal, prepared.label, toStdout, progressText, resume);
  const stdoutError: unknown = toStdout && f.io.stdoutFailed.aborted ? f.io.stdoutFailed.reason : undefined;
  const readerLeft = (stdoutError as NodeJS.ErrnoException | undefined)?.code === 'EPIPE';
  if (stdoutError !== undefined && !readerLeft) {
    throw new CliError(
      'failure',
      o.dryRun
        ? `cannot write the results to stdout: ${storageProblem(stdoutError)}; the dry run stopped after listing ${progressText} records`
        : `cannot write the results to stdout: ${storageProblem(stdoutError)}; stopped sending after ${progressText} records (every outcome is in ${prepared.label})`,
      { code: 'results_not_written', cause: stdoutError, hint: resume },
    );
  }
  if (o.output === 'table' && !f.io.stdoutFailed.aborted) await printSummaryTable(f, counts, o.dryRun, o.headers !== false);

  // Interrupted first: whatever else stopped the run meanwhile (a connection refused while the retries
  // were being waited out), the user pressed Ctrl-C, and this line says how to go on.
  if (f.signal.aborted) throw new InterruptedError(`interrupted after ${done} of ${plan.total} records${resume ? `; continue with: ${resume}` : ''}`);
  if (fatal !== undefined) {
    if (fatal instanceof CliError)
      throw new CliError(fatal.kind, `${fatal.message}; stopped after ${done} of ${plan.total} records`, {
        code: fatal.code,
        status: fatal.status,
        // A rate-limit give-up says when to try again (advice); the command to do so is this run's continuation.
        advice: fatal.advice,
        hint: fatal.hint ?? resume,
      });
    throw fatal;
  }
  // `| head -1`: the reader has what it wanted, but the records after it were not sent (exit 141).
  if (readerLeft && done < plan.total) {
    throw new StdoutClosedError(
      o.dryRun
        ? `stdout was closed (its reader exited): the dry run stopped after listing ${progressText} records`
        : `stdout was closed (its reader exited): stopped after ${progressText} records; the others were not sent`,
      { hint: resume },
    );
  }
  const notCreated = counts.failed + counts.unknown + counts.invalid;
  if (notCreated > 0) {
    const lines = unknownLines.sort((a, b) => a - b);
    const unknownAt =
      lines.length === 0
        ? ''
        : `; unknown at ${lines.length === 1 ? 'line' : 'lines'} ${lines.slice(0, 20).join(', ')}${counts.unknown > 20 ? ', …' : ''}: check whether they exist, and send the missing ones with --resume --retry-unknown <lines>`;
    // A dry run created nothing and failed nothing: it says what a run would leave out.
    const left = o.dryRun
      ? `would not be created (unknown ${counts.unknown}, invalid ${counts.invalid})`
      : `were not created (failed ${counts.failed}, unknown ${counts.unknown}, invalid ${counts.invalid})`;
    throw new PartialFailureError(`${notCreated} of ${plan.total} records ${left}; see the results${unknownAt}`);
  }
}

/**
 * A journal line could not be written (a full disk, an I/O error): sending stopped at once, and no
 * record was sent without its in-flight line, so --resume duplicates nothing (a record whose outcome
 * line is missing is unknown to it). The outcome lines the journal could not take go to stdout (unless
 * they went there already): appended to the journal once there is room, they turn those unknowns
 * back into what happened. Exit 1.
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

/**
 * From this many requests on, undici's dispatcher (see HttpTransport's `bulk`): loading it costs
 * ~30 ms and ~25 MB, and its lower cost per request pays that back at about 500 requests
 * (100 records: 0.17 s on node:http, 0.21 s on undici; 1,000: 0.53 s against 0.45 s).
 */
const BULK_ENGINE_FROM = 500;

/** `stop` ends the waits before a request is sent; `inflight` aborts the requests already sent. */
function clientFor(
  f: Factory,
  signals: { inflight: AbortSignal; stop: AbortSignal; onWait: WaitAnnouncer },
  requests: number,
  concurrency: number,
): Promise<ApiClient> {
  return f.newClient({
    transportSignal: signals.inflight,
    waitSignal: signals.stop,
    onWait: signals.onWait,
    ...(requests >= BULK_ENGINE_FROM ? { bulk: { connections: concurrency } } : {}),
  });
}
