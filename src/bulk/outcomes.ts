// What one record of a seeding run comes to: its result line without a request (invalid, in an
// earlier run, a dry run), else that of the answer to its create, or of a create that got none.
import { InterruptedError, MalformedResponseError } from '../errors/errors.js';
import type { ApiClient } from '../http/api-client.js';
import type { ApiResponse } from '../transport/exchange.js';
import { isOutcomeUnknown } from '../http/outcome.js';
import { describeResponse, errorForResponse } from '../api/errors.js';
import { apiErrorBody } from '../http/error-body.js';
import { TransportError } from '../transport/errors.js';
import { toPet, type NewPet } from '../pets/pet.js';
import { firstValue } from '../wire/headers.js';
import { earlierVerdict, outcomeUnknown, type EarlierResult } from './journal-read.js';
import type { PreparedJournal } from './journal-setup.js';
import type { PetCheck } from './new-pet-record.js';
import type { InputRecord } from './read-records.js';
import type { ResultLine, WouldCreateLine } from './results.js';

/** What a run writes for one record: its result line, and whether the journal takes it. */
export interface Written {
  result: ResultLine | WouldCreateLine;
  /** Append to the journal (false: the journal already says it). */
  journal: boolean;
}

/** Sends one valid record (`resent`: its earlier outcome is unknown). */
export type SendOne = (line: number, check: PetCheck, resent: boolean) => Promise<Written>;

/** Statuses that reject the request: surely not created, "failed". Any other non-created answer (3xx, 5xx, 408...) is "unknown". */
const REJECTED: ReadonlySet<number> = new Set([400, 404, 405, 407, 409, 410, 411, 413, 414, 415, 422, 431]);

function errorSummary(res: ApiResponse): { code: string; message: string; status: number } {
  const body = apiErrorBody(res);
  return { code: body?.code ?? `http_${res.status}`, message: body?.message ?? describeResponse(res).message, status: res.status };
}

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

/** A record resent with --retry-unknown that this attempt did not create: the earlier one may have, so it stays unknown. */
export function stillUnknown(line: number, pet: NewPet, why: string): ResultLine {
  return {
    line,
    status: 'unknown',
    reason: `resent with --retry-unknown, and ${why}; the earlier attempt may still have created it: check whether it exists`,
    record: pet,
  };
}

/** The result line of an answer to a create, or the error that stops the whole run. `resent`: its earlier outcome is unknown. */
export function answered(client: ApiClient, line: number, pet: NewPet, res: ApiResponse, resent: boolean): ResultLine {
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
export function unanswered(error: unknown, line: number, pet: NewPet, inflight: AbortSignal): ResultLine {
  const unknown = (reason: string): ResultLine => ({ line, status: 'unknown', reason, record: pet });
  if (isOutcomeUnknown(error) || (error instanceof TransportError && error.sent)) return unknown(error.message);
  if (error instanceof InterruptedError && inflight.aborted) return unknown('interrupted while the request was in flight: it may or may not have been created');
  // An answer too big to read (its status unread): the request was sent and may have been processed.
  if (error instanceof MalformedResponseError) return unknown(`${error.message}: it may or may not have been created`);
  throw error;
}

/** Whether --retry-unknown asks for the record at this input line to be resent. */
export function retries(retryUnknown: boolean | ReadonlySet<number>, line: number): boolean {
  return typeof retryUnknown === 'boolean' ? retryUnknown : retryUnknown.has(line);
}

/** The unknown line of a record an earlier run left unknown and this run does not resend. */
function keptUnknown(line: number, pet: NewPet, prior: EarlierResult | undefined, inPlace: boolean): Written {
  const why =
    prior?.status === 'sending'
      ? 'in flight when an earlier run stopped: it may or may not have been created;'
      : 'outcome unknown in an earlier run and not resent:';
  return {
    result: {
      line,
      status: 'unknown',
      reason: `${why} check whether it exists, and if not, rerun with --retry-unknown ${line} to send it`,
      record: pet,
    },
    // In place, an unknown is already journaled; an in-flight mark becomes an unknown once.
    journal: !inPlace || prior?.status === 'sending',
  };
}

/** A record's result when it needs no request (invalid, done earlier, a dry run); else `send` sends it. */
export function outcome(
  rec: InputRecord,
  retryUnknown: boolean | ReadonlySet<number>,
  { earlier, inPlace }: PreparedJournal,
  send: SendOne | undefined,
): Written | Promise<Written> {
  const prior = earlier?.get(rec.line);
  if (!rec.check.ok) {
    // Edited into an invalid record (--skip-invalid) since an earlier run created it or left it unknown:
    // the journal keeps that word. As "invalid", the next --resume would send the record once it is fixed.
    return { result: { line: rec.line, status: 'invalid', problems: rec.check.problems }, journal: earlierVerdict(prior, false) === 'send' };
  }
  switch (earlierVerdict(prior, retries(retryUnknown, rec.line))) {
    case 'skip':
      return { result: { line: rec.line, status: 'skipped', pet: prior?.pet as NonNullable<EarlierResult['pet']> }, journal: !inPlace };
    case 'keep_unknown':
      return keptUnknown(rec.line, rec.check.pet, prior, inPlace);
    case 'send':
      if (!send) return { result: { line: rec.line, status: 'would_create', record: rec.check.pet }, journal: false };
      return send(rec.line, rec.check, outcomeUnknown(prior));
  }
}
