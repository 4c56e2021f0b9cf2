import type { Readable } from 'node:stream';
import { UsageError } from '../errors/errors.js';
import { INPUT_FORMATS, notOneOf } from '../flag-values.js';
import { csvRecords } from './csv-records.js';
import { ArrayScanner, type Element } from './json-array.js';
import { LineSplitter, type RawLine } from './lines.js';
import { checkJsonRecord, type InputRecord } from './new-pet-record.js';
import { inputBytes } from './record-bytes.js';

export type InputFormat = (typeof INPUT_FORMATS)[number];

export type { InputRecord };

/** The format from --format, else the file's extension; undefined when it must be sniffed. */
export function formatFromName(path: string, flag: string | undefined): InputFormat | undefined {
  if (flag !== undefined) {
    if (!(INPUT_FORMATS as readonly string[]).includes(flag)) {
      throw notOneOf('--format', flag, INPUT_FORMATS);
    }
    return flag as InputFormat;
  }
  const ext = /\.(json|ndjson|jsonl|csv)$/i.exec(path)?.[1]?.toLowerCase();
  return ext === 'jsonl' ? 'ndjson' : (ext as InputFormat | undefined);
}

/** Guesses the format from the first non-blank character of the input. */
export function sniffFormat(head: string): InputFormat {
  const first = head.trimStart()[0];
  if (first === '[') return 'json';
  if (first === '{') return 'ndjson';
  return 'csv';
}

/** NDJSON: one object per line; a line too long or not UTF-8 is a problem of its own, and the lines after it are read. */
async function* ndjsonRecords(input: Readable): AsyncGenerator<InputRecord[]> {
  const splitter = new LineSplitter();
  for await (const chunk of inputBytes(input)) yield lineRecords(splitter.push(chunk));
  yield lineRecords(splitter.end());
}

function lineRecords(lines: RawLine[]): InputRecord[] {
  const out: InputRecord[] = [];
  for (const raw of lines) {
    if ('problem' in raw) out.push({ line: raw.line, check: { ok: false, problems: [raw.problem] } });
    else if (raw.text.trim() !== '') out.push({ line: raw.line, check: checkJsonRecord(raw.text) });
  }
  return out;
}

/** The records of array elements; a problem with the whole input is thrown after the records before it. */
function* elementRecords(elements: Element[]): Generator<InputRecord[]> {
  const out: InputRecord[] = [];
  for (const e of elements) {
    if ('fatal' in e) {
      yield out;
      throw new UsageError(`line ${e.line}: ${e.fatal}`);
    }
    out.push({ line: e.line, check: 'problem' in e ? { ok: false, problems: [e.problem] } : checkJsonRecord(e.source) });
  }
  yield out;
}

/** A JSON array, streamed: only the element being read is held, so any size reads in flat memory. */
async function* jsonArrayRecords(input: Readable): AsyncGenerator<InputRecord[]> {
  const scanner = new ArrayScanner();
  for await (const chunk of inputBytes(input)) yield* elementRecords(scanner.push(chunk));
  yield* elementRecords(scanner.end());
}

/** NewPet records with their lines, a chunk's worth at a time in flat memory; an abort of `signal` rejects the reading with its reason. */
export function readRecordBatches(input: Readable, format: InputFormat, signal?: AbortSignal): AsyncGenerator<InputRecord[]> {
  if (signal) {
    const onAbort = () => input.destroy(signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason)));
    if (signal.aborted) onAbort();
    else {
      signal.addEventListener('abort', onAbort, { once: true });
      input.once('close', () => signal.removeEventListener('abort', onAbort));
    }
  }
  const readers = { ndjson: ndjsonRecords, csv: csvRecords, json: jsonArrayRecords };
  return readers[format](input);
}

export async function* readRecords(input: Readable, format: InputFormat, signal?: AbortSignal): AsyncGenerator<InputRecord> {
  for await (const batch of readRecordBatches(input, format, signal)) for (const rec of batch) yield rec;
}
