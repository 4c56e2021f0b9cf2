import { decimal } from '../json/decimal.js';
import { int64Json, stringifyJson } from '../json/int64.js';
import type { NewPet, Pet } from '../pets/pet.js';
import { petJson } from '../pets/pet-json.js';

export type ResultLine =
  /** `json`: the pet's JSON as the server wrote it, when that is how this line writes it (pet-json.ts's form). */
  | { line: number; status: 'created'; pet: Pet; json?: string }
  /** Created by an earlier run (--resume); carries the pet so the new file is a complete record too. */
  | { line: number; status: 'skipped'; pet: Pet }
  | { line: number; status: 'failed'; error: { code: string; message: string; status?: number } }
  | { line: number; status: 'unknown'; reason: string; record: NewPet }
  | { line: number; status: 'invalid'; problems: string[] }
  /**
   * Journal only: journaled as in flight, then proven not created for a reason that is not the
   * record's (a 401, a 429 that stopped the run, a connection refused): --resume sends it.
   */
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
  if ('status' in result) {
    if (result.status === 'would_create') return formatWouldCreate(result.line, result.record, result.json);
    if (result.status === 'created' || result.status === 'skipped') {
      // A pet of the store's own form: the server's text of it, else its JSON by hand (the most of a
      // created record's line).
      const pet = (result.status === 'created' && result.json) || petJson(result.pet);
      if (pet !== undefined) return `{"line":${decimal(result.line)},"status":"${result.status}","pet":${pet}}\n`;
    }
  }
  // stringifyJson (native JSON.stringify on a plain copy), not a line written by hand: built from
  // template pieces, a million result lines made three times the garbage (tried, issue #18).
  return `${stringifyJson(result)}\n`;
}

/** The journal's in-flight mark for a record: formatResult's bytes, written once per record without the JSON machinery. */
export function sendingLine(line: number): string {
  return `{"line":${decimal(line)},"status":"sending"}\n`;
}

/** A dry run's line for a record it would send. */
export interface WouldCreateLine {
  line: number;
  status: 'would_create';
  record: NewPet;
  /** The record's JSON when the input wrote it as this line does (RecordCheck's `json`): copied, not written anew. */
  json?: string | undefined;
}

/**
 * A WouldCreateLine's bytes (formatResult's way for one), from an object of fixed shape instead of a copy made by
 * walking the line (a pet is name, categoryId and an optional status, in that order, however it was
 * read): the most of a million-line dry run's formatting (issue #18).
 */
export function formatWouldCreate(line: number, pet: NewPet, json?: string): string {
  if (json !== undefined) return `{"line":${decimal(line)},"status":"would_create","record":${json}}\n`;
  const categoryId = int64Json(pet.categoryId);
  const record = pet.status === undefined ? { name: pet.name, categoryId } : { name: pet.name, categoryId, status: pet.status };
  return `${JSON.stringify({ line, status: 'would_create', record })}\n`;
}

/** True when an earlier run's pet is the record at the same line (the input file did not change under it). */
export function sameRecord(pet: Pet, record: NewPet): boolean {
  return pet.name === record.name && pet.categoryId === record.categoryId && (record.status === undefined || pet.status === record.status);
}
