import { closeSync, createReadStream, fstatSync, openSync, readSync } from 'node:fs';
import { UsageError } from '../errors/errors.js';
import { parseJson } from '../json/int64.js';
import { toPet, type Pet } from '../pets/pet.js';
import { LineSplitter } from './lines.js';
import { inputBytes } from './record-bytes.js';
import type { JournalHeader, ResultStatus } from './results.js';

/** What a journal says of one input line: its last word, 'sending' when the run ended before its outcome. */
export interface EarlierResult {
  status: ResultStatus | 'sending' | 'would_create';
  pet?: Pet;
  /** The line itself, when asked for (the --report view). */
  text?: string;
}

/** A resumed run's verdict on a valid record from the journal's last word on it: created is skipped; unknown kept unless --retry-unknown; the rest sent. */
export function earlierVerdict(earlier: EarlierResult | undefined, retryUnknown: boolean): 'send' | 'skip' | 'keep_unknown' {
  if (!earlier) return 'send';
  if ((earlier.status === 'created' || earlier.status === 'skipped') && earlier.pet) return 'skip';
  if (outcomeUnknown(earlier) && !retryUnknown) return 'keep_unknown';
  return 'send';
}

/** The journal's last word on a line leaves its outcome unknown: reported unknown, or in flight when a run stopped. */
export function outcomeUnknown(earlier: EarlierResult | undefined): boolean {
  return earlier?.status === 'unknown' || earlier?.status === 'sending';
}

export interface JournalState {
  header: JournalHeader | undefined;
  byLine: Map<number, EarlierResult>;
  /** Bytes up to the end of the last whole line: a torn last line (killed mid-write) starts here. */
  wholeBytes: number;
  /** The file did not end with a line break: its last line was cut by a crash and is ignored. */
  torn: boolean;
  /** The last run on it went through the whole input (its last line is a footer). */
  finished: boolean;
}

/** The file's size, the offset just past its last line break (0 if none), read backwards, and the text of its last whole line (a long one from its last 64 KiB). */
function endOfLastLine(path: string): { size: number; whole: number; lastLine: string } {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const chunk = Buffer.allocUnsafe(65_536);
    for (let end = size; end > 0; ) {
      const start = Math.max(0, end - chunk.length);
      const n = readSync(fd, chunk, 0, end - start, start);
      const at = chunk.subarray(0, n).lastIndexOf(0x0a);
      if (at >= 0) {
        const text = chunk.toString('utf8', 0, at).trimEnd();
        return { size, whole: start + at + 1, lastLine: text.slice(text.lastIndexOf('\n') + 1) };
      }
      end = start;
    }
    return { size, whole: 0, lastLine: '' };
  } finally {
    closeSync(fd);
  }
}

const NOT_A_JOURNAL = 'is it a journal (results file) from "pets add --file"?';

/** One whole line of a journal: its header, its footer, or what it says of an input line (a UsageError if none of those). */
function journalLine(text: string, where: string): { header: JournalHeader } | { finished: true } | { line: number; result: EarlierResult } {
  let value: Record<string, unknown> | null;
  try {
    value = parseJson(text) as Record<string, unknown> | null;
  } catch {
    throw new UsageError(`${where}: not valid JSON; ${NOT_A_JOURNAL}`);
  }
  if (value !== null && typeof value === 'object' && value.journal !== undefined) return { header: value as unknown as JournalHeader };
  if (value !== null && typeof value === 'object' && value.finished !== undefined) return { finished: true };
  const line = value?.line;
  const status = value?.status;
  if (typeof line !== 'number' || !Number.isSafeInteger(line) || typeof status !== 'string') {
    throw new UsageError(`${where}: expected {"line":n,"status":...}; ${NOT_A_JOURNAL}`);
  }
  const pet = value?.pet === undefined ? undefined : toPet(value.pet);
  return { line, result: { status: status as EarlierResult['status'], ...(pet ? { pet } : {}) } };
}

/** The journal's size and the end of its last whole line, or the UsageError that says why it cannot be read. */
function journalExtent(path: string, flag: string): { size: number; whole: number } {
  try {
    return endOfLastLine(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new UsageError(`${flag} ${path} does not exist`);
    if (code === 'EISDIR') throw new UsageError(`${flag} ${path} is a folder, not a journal`);
    throw error;
  }
}

/** Reads a journal for --resume, the last line about each input line winning; a torn last line is ignored, any other bad line is an error. */
export async function readJournal(path: string, flag: string, keepText = false): Promise<JournalState> {
  const { size, whole } = journalExtent(path, flag);
  const state: JournalState = { header: undefined, byLine: new Map(), wholeBytes: whole, torn: whole < size, finished: false };
  // Only the whole lines: the torn tail is never parsed.
  const splitter = new LineSplitter(Number.POSITIVE_INFINITY);
  for await (const chunk of inputBytes(whole === 0 ? [] : createReadStream(path, { start: 0, end: whole - 1 }))) {
    for (const raw of splitter.push(chunk)) {
      const text = 'text' in raw ? raw.text : '\uFFFD';
      if (text.trim() === '') continue;
      const read = journalLine(text, `${flag} ${path}, line ${raw.line}`);
      if ('header' in read) state.header ??= read.header;
      else state.finished = 'finished' in read;
      if ('line' in read) state.byLine.set(read.line, keepText ? { ...read.result, text } : read.result);
    }
  }
  return state;
}

/** Whether a journal's last whole line is the footer of a run that went through its whole input. */
export function lastRunFinished(path: string): boolean {
  try {
    return endOfLastLine(path).lastLine.startsWith('{"finished":');
  } catch {
    return false;
  }
}
