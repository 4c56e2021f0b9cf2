import { stringifyJson } from '../json/int64.js';
import type { NewPet, Pet } from '../pets/pet.js';

export type ResultLine =
  | { line: number; status: 'created'; pet: Pet }
  /** Created by an earlier run (--resume); carries the pet so the new file is a complete record too. */
  | { line: number; status: 'skipped'; pet: Pet }
  | { line: number; status: 'failed'; error: { code: string; message: string; status?: number } }
  | { line: number; status: 'unknown'; reason: string; record: NewPet }
  | { line: number; status: 'invalid'; problems: string[] }
  /** Journal only: journaled as in flight, then proven not created for a reason not the record's (a 401, a stopping 429): --resume sends it. */
  | { line: number; status: 'not_created'; reason: string };

export type ResultStatus = ResultLine['status'];

/** Journal only: written (one write) just before the record's request leaves. */
export interface SendingLine {
  line: number;
  status: 'sending';
}

/** The journal's first line: what was sent where, so a resume against another input or server is refused. */
export interface JournalHeader {
  journal: 'petstore pets add';
  version: 1;
  /** The input's absolute path, or "-" for stdin. */
  input: string;
  /** sha256 of the input's bytes, hex. */
  sha256: string;
  /** The base URL the records were sent to. */
  target: string;
  started: string;
}

/** The journal's last line when a run went through its whole input (nothing left unsent by a stop). */
export interface JournalFooter {
  finished: string;
}

/** One NDJSON line, written with a single write so a crash never leaves half a record before it. */
export function formatResult(result: ResultLine | SendingLine | JournalHeader | JournalFooter | WouldCreateLine): string {
  if (!('status' in result)) return `${stringifyJson(result)}\n`;
  // One per record sent, and one per record of a dry run: their few fields put in place, stringifyJson's bytes (records.test.ts).
  if (result.status === 'sending') return `{"line":${result.line},"status":"sending"}\n`;
  if (result.status !== 'would_create') return `${stringifyJson(result)}\n`;
  const { name, categoryId, status } = result.record;
  return `{"line":${result.line},"status":"would_create","record":{"name":${JSON.stringify(name)},"categoryId":${categoryId}${status === undefined ? '' : `,"status":"${status}"`}}}\n`;
}

/** A dry run's line for a record it would send. */
export interface WouldCreateLine {
  line: number;
  status: 'would_create';
  record: NewPet;
}

/** True when an earlier run's pet is the record at the same line (the input file did not change under it). */
export function sameRecord(pet: Pet, record: NewPet): boolean {
  return pet.name === record.name && pet.categoryId === record.categoryId && (record.status === undefined || pet.status === record.status);
}
