import { createReadStream } from 'node:fs';
import { UsageError } from '../errors/errors.js';
import { parseJson, stringifyJson } from '../json/int64.js';
import { toPet, type NewPet, type Pet } from '../pets/pet.js';
import { lines } from './lines.js';

export type ResultLine =
  | { line: number; status: 'created'; pet: Pet }
  /** Created by an earlier run (--resume); carries the pet so the new file is a complete record too. */
  | { line: number; status: 'skipped'; pet: Pet }
  | { line: number; status: 'failed'; error: { code: string; message: string; status?: number } }
  | { line: number; status: 'unknown'; reason: string; record: NewPet }
  | { line: number; status: 'invalid'; problems: string[] };

export type ResultStatus = ResultLine['status'];

/** One NDJSON line, written with a single write so a crash never leaves half a record before it. */
export function formatResult(result: ResultLine): string {
  return `${stringifyJson(result)}\n`;
}

export interface EarlierResult {
  status: ResultStatus;
  pet?: Pet;
}

/**
 * Reads an earlier results file for --resume. A torn last line (the process
 * was killed mid-write) is ignored; any other bad line is an error, since
 * guessing could create duplicates.
 */
export async function readEarlierResults(path: string): Promise<{ byLine: Map<number, EarlierResult>; tornLastLine: boolean }> {
  const byLine = new Map<number, EarlierResult>();
  let pendingError: string | undefined;
  let lineNo = 0;
  let stream: ReturnType<typeof createReadStream> | undefined;
  try {
    stream = createReadStream(path, { encoding: 'utf8' });
    for await (const text of lines(stream)) {
      lineNo++;
      if (pendingError) throw new UsageError(pendingError);
      if (text.trim() === '') continue;
      let value: Record<string, unknown>;
      try {
        value = parseJson(text) as Record<string, unknown>;
      } catch {
        pendingError = `--resume file ${path}, line ${lineNo}: not valid JSON; is it a results file from "pets add --file"?`;
        continue;
      }
      const line = value?.line;
      const status = value?.status;
      if (typeof line !== 'number' || !Number.isSafeInteger(line) || typeof status !== 'string') {
        throw new UsageError(`--resume file ${path}, line ${lineNo}: expected {"line":n,"status":...}; is it a results file from "pets add --file"?`);
      }
      const pet = value.pet === undefined ? undefined : toPet(value.pet);
      byLine.set(line, { status: status as ResultStatus, ...(pet ? { pet } : {}) });
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new UsageError(`--resume file ${path} does not exist`);
    throw error;
  }
  return { byLine, tornLastLine: pendingError !== undefined };
}

/** True when an earlier run's pet is the record at the same line (the input file did not change under it). */
export function sameRecord(pet: Pet, record: NewPet): boolean {
  return pet.name === record.name && pet.categoryId === record.categoryId && (record.status === undefined || pet.status === record.status);
}
