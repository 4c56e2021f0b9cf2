import type { Readable } from 'node:stream';
import { UsageError } from '../errors/errors.js';
import { INPUT_FORMATS, notOneOf } from '../flag-values.js';
import { parseJson } from '../json/int64.js';
import { CsvGuard, type GuardedRecord } from './csv-guard.js';
import { ArrayScanner, type Element } from './json-array.js';
import { LineSplitter, type LineSink } from './lines.js';
import { type CsvColumns, checkNewPet, csvColumns, NEW_PET_FIELDS, quickCsvPet, quickPet, REQUIRED_FIELDS, type RecordCheck } from './new-pet-record.js';
import { asBytes, BOM, CR, decodeUtf8, LF } from './record-bytes.js';

const QUOTE_BYTE = 0x22;

export type InputFormat = (typeof INPUT_FORMATS)[number];

export interface InputRecord {
  /** 1-based line where the record starts. */
  line: number;
  check: RecordCheck;
}

/** The format from --format, else the file's extension; undefined when it must be sniffed. */
export function formatFromName(path: string, flag: string | undefined): InputFormat | undefined {
  if (flag !== undefined) {
    if (!(INPUT_FORMATS as readonly string[]).includes(flag)) {
      throw notOneOf('--format', flag, INPUT_FORMATS);
    }
    return flag as InputFormat;
  }
  const ext = /\.([a-z]+)$/i.exec(path)?.[1]?.toLowerCase();
  if (ext === 'json') return 'json';
  if (ext === 'ndjson' || ext === 'jsonl') return 'ndjson';
  if (ext === 'csv') return 'csv';
  return undefined;
}

/** Guesses the format from the first non-blank character of the input. */
export function sniffFormat(head: string): InputFormat {
  const first = head.trimStart()[0];
  if (first === '[') return 'json';
  if (first === '{') return 'ndjson';
  return 'csv';
}

function parseFailure(message: string): RecordCheck {
  return { ok: false, problems: [message] };
}

/** One record's JSON text (an NDJSON line, an array element) checked as a NewPet. */
function checkJsonRecord(source: string): RecordCheck {
  return quickPet(source, 0, source.length) ?? exactJsonRecord(source);
}

/** The same, by JSON.parse (int64 exact) and checkNewPet: for the records quickPet leaves, and their problems. */
function exactJsonRecord(source: string): RecordCheck {
  let value: unknown;
  try {
    value = parseJson(source);
  } catch (error) {
    return parseFailure(`invalid JSON: ${(error as Error).message}`);
  }
  return checkNewPet(value);
}

/** The records of an input, as an async iterator, and the next one at once when it is already read. */
export interface RecordStream extends AsyncIterableIterator<InputRecord> {
  /** The next record if it is at hand (no reading, no promise); undefined when next() must read on. */
  takeNow(): InputRecord | undefined;
}

/** Records already read (pass 1's, kept for pass 2), as a stream: every one at hand (takeNow). */
export function recordsOf(list: readonly InputRecord[]): RecordStream {
  let at = 0;
  const stream: RecordStream = {
    takeNow: () => list[at++],
    next: () => {
      const value = list[at++];
      return Promise.resolve(value === undefined ? { done: true, value: undefined } : { done: false, value });
    },
    [Symbol.asyncIterator]: () => stream,
  };
  return stream;
}

/**
 * Every record in turn to `each`, without a promise or a turn of the microtask queue for those already
 * read (a for await costs both per record: a sixth of a million-line dry run; issue #18). `each` may
 * return a promise to wait for, or false to stop; the input is closed when it stops or throws.
 */
export async function forEachRecord(records: RecordStream, each: (rec: InputRecord) => Promise<void> | false | void): Promise<void> {
  let finished = false;
  try {
    for (;;) {
      let rec = records.takeNow();
      if (rec === undefined) {
        const step = await records.next();
        if (step.done) {
          finished = true;
          return;
        }
        rec = step.value;
      }
      const after = each(rec);
      if (after === false) return;
      if (after) await after;
    }
  } finally {
    if (!finished) await records.return?.();
  }
}

/**
 * Finds the records in a stream's chunks: push() gives it a chunk once take() has nothing more (and
 * end() the end of the input); take() returns the next record, or undefined when it needs more
 * input. A throw ends the reading, after the records found before it.
 */
interface ChunkReader {
  /** Settled before the first chunk is read (a module loaded, say). */
  readonly ready?: Promise<unknown>;
  push(chunk: Uint8Array): void;
  end(): void;
  take(): InputRecord | undefined;
}

/**
 * The records of a stream, as a ChunkReader finds them. Written out rather than as an async
 * generator, whose yield costs several promises and microtask turns: a record here costs one resolved
 * promise (~70 ns against ~150 ns, twice per record in a dry run, and less garbage). Like a generator,
 * it hands out the records found before a failure first, and stops reading (the input is destroyed)
 * on a failure or return().
 */
class Records implements RecordStream {
  readonly #chunks: AsyncIterator<unknown>;
  readonly #reader: ChunkReader;
  #done = false;
  #failure: { error: unknown } | undefined;
  /** The reading under way: a next() meanwhile waits for it. */
  #reading: Promise<IteratorResult<InputRecord>> | undefined;

  constructor(input: Readable, reader: ChunkReader) {
    this.#chunks = input[Symbol.asyncIterator]();
    this.#reader = reader;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  takeNow(): InputRecord | undefined {
    if (this.#reading || this.#failure !== undefined) return undefined;
    try {
      return this.#reader.take();
    } catch (error) {
      // next() then hands out the failure, as it would have.
      this.#fail(error);
      return undefined;
    }
  }

  next(): Promise<IteratorResult<InputRecord>> {
    if (this.#reading) {
      return this.#reading.then(
        () => this.next(),
        () => this.next(),
      );
    }
    if (this.#failure === undefined) {
      let value: InputRecord | undefined;
      try {
        value = this.#reader.take();
      } catch (error) {
        this.#fail(error);
      }
      if (value !== undefined) return Promise.resolve({ value, done: false });
    }
    const reading = this.#read();
    this.#reading = reading;
    return reading.then(
      (step) => {
        this.#reading = undefined;
        return step;
      },
      (error: unknown) => {
        this.#reading = undefined;
        throw error;
      },
    );
  }

  async return(): Promise<IteratorResult<InputRecord>> {
    await this.#reading?.catch(() => {});
    this.#failure = undefined;
    this.#done = true;
    await this.#chunks.return?.();
    return { value: undefined, done: true };
  }

  #fail(error: unknown): void {
    this.#failure = { error };
    // As a generator's for-await over the input would on a throw: the input is destroyed.
    if (!this.#done) {
      this.#done = true;
      void this.#chunks.return?.();
    }
  }

  async #read(): Promise<IteratorResult<InputRecord>> {
    for (;;) {
      if (this.#failure) {
        const { error } = this.#failure;
        this.#failure = undefined;
        throw error;
      }
      if (this.#done) return { value: undefined, done: true };
      let step: IteratorResult<unknown>;
      try {
        await this.#reader.ready;
        step = await this.#chunks.next();
      } catch (error) {
        this.#done = true;
        throw error;
      }
      try {
        if (step.done) {
          this.#done = true;
          this.#reader.end();
        } else this.#reader.push(asBytes(step.value));
        const value = this.#reader.take();
        if (value !== undefined) return { value, done: false };
        if (step.done) return { value: undefined, done: true };
      } catch (error) {
        this.#fail(error);
      }
    }
  }
}

/** NDJSON: one object per line; a line too long or not UTF-8 is a problem of its own, and the lines after it are read. */
class NdjsonReader implements ChunkReader, LineSink {
  readonly #splitter = new LineSplitter(this);
  #record: InputRecord | undefined;

  push(chunk: Uint8Array): void {
    this.#splitter.push(chunk);
  }

  end(): void {
    this.#splitter.end();
  }

  take(): InputRecord | undefined {
    // A blank line gives no record: on to the next line.
    while (this.#record === undefined) if (!this.#splitter.next()) break;
    const record = this.#record;
    this.#record = undefined;
    return record;
  }

  line(line: number, text: string, start: number, end: number): void {
    // The usual record read in place; anything else (a blank line too) as its own text.
    const check = quickPet(text, start, end);
    if (check !== undefined) {
      this.#record = { line, check };
      return;
    }
    const source = text.slice(start, end);
    if (source.trim() !== '') this.#record = { line, check: exactJsonRecord(source) };
  }

  problem(line: number, problem: string): void {
    this.#record = { line, check: parseFailure(problem) };
  }
}

const CSV_COLUMNS = new Set(NEW_PET_FIELDS);

/**
 * Line breaks in one record's raw text as csv-parse hands it over: the record's own LFs, plus the LF of
 * a CRLF that ends it (csv-parse leaves that LF out of `raw`). Counted here rather than taken from
 * csv-parse's `info.lines`, which counts a CRLF inside a quoted field as two lines and a lone CR as one.
 */
function lineBreaks(raw: string): number {
  let n = raw.endsWith('\r') ? 1 : 0;
  for (let i = raw.indexOf('\n'); i !== -1; i = raw.indexOf('\n', i + 1)) n++;
  return n;
}

type ParseSync = typeof import('csv-parse/sync').parse;

/**
 * The CSV reader scans a chunk this much at a time, and reads the whole records found so far
 * together: with csv-parse's records from a whole 64 KB chunk alive together, the garbage collector
 * copied them again and again, and a fully quoted file took twice as long.
 */
const SLICE = 8192;

/** csv-parse's options for the records it is given (`bom` for the first bytes of the input only). */
const CSV_OPTIONS = {
  // A quote inside an unquoted field is data; a row with the wrong column count is reported
  // below for that row alone instead of failing the input.
  relax_quotes: true,
  relax_column_count: true,
  // Blank lines stay records here, so every line belongs to one and raw text gives line numbers.
  skip_empty_lines: false,
  raw: true,
  // The only error these options leave is a quote still open at the end of the input. As a thrown
  // error it would discard the records already parsed but not yet read; skipped, it is reported last.
  skip_records_with_error: true,
};

/**
 * RFC 4180 records, each with the line it starts on. CsvGuard reads the bytes first: it finds where
 * each record ends (as csv-parse does) and lists the records csv-parse must not be trusted with: one
 * not UTF-8 (csv-parse would read U+FFFD) is reported instead of csv-parse's record at its line; one
 * past the bound was cut short for csv-parse, and is reported instead of the piece csv-parse saw.
 * The whole records found so far are read together: by csv-parse (csv-parse/sync, loaded only for
 * CSV input), or, when they hold no quote at all and are UTF-8, split on commas here, which is what
 * csv-parse makes of them (a 1,000,000-line dry run took ~8.4 s with csv-parse for every record, ~2.5 s
 * so). Either way each row is then read alike, one at a time as they are asked for.
 * (`maxRecordBytes` is for tests: with records cut a few bytes long, they show that the guard finds the
 * records csv-parse finds.)
 */
class CsvReader implements ChunkReader {
  readonly ready: Promise<void>;
  #parse: ParseSync | undefined;
  readonly #guard: CsvGuard;
  /** The chunk being read, and how much of it the guard has scanned. */
  #chunk: Uint8Array | undefined;
  #chunkAt = 0;
  /** Bytes from the guard not yet read: the start of a record. */
  #pieces: Uint8Array[] = [];
  /** How many of the guard's bytes were read so far. */
  #read = 0;
  /** The rows of the records being read: as text with no quote, or as csv-parse gave them. */
  #text = '';
  #textNext = '';
  #at = 0;
  #rows: { record: string[]; raw: string }[] = [];
  #row = 0;
  /** Records found, not yet taken; and a failure to report after them. */
  #out: InputRecord[] = [];
  #taken = 0;
  #failure: { error: unknown } | undefined;
  #header: string[] | undefined;
  #columns: CsvColumns | undefined;
  #next = 1;
  /** A record cut short: reported once the next record (or the end) shows the guard has seen its end. */
  #cut: GuardedRecord | undefined;
  #unterminated = false;

  constructor(maxRecordBytes?: number) {
    this.#guard = new CsvGuard((bytes) => this.#pieces.push(bytes), maxRecordBytes);
    this.ready = import('csv-parse/sync').then((m) => {
      this.#parse = m.parse;
    });
  }

  push(chunk: Uint8Array): void {
    this.#chunk = chunk;
    this.#chunkAt = 0;
  }

  end(): void {
    this.#failing(() => {
      this.#guard.flush();
      this.#records(true);
      while (this.#step()) {}
      this.#end();
    });
  }

  take(): InputRecord | undefined {
    for (;;) {
      if (this.#taken < this.#out.length) return this.#out[this.#taken++];
      this.#out.length = 0;
      this.#taken = 0;
      if (this.#failure) {
        const { error } = this.#failure;
        this.#failure = undefined;
        throw error;
      }
      let more: boolean;
      try {
        more = this.#step();
      } catch (error) {
        // Reported after the records found before it.
        this.#failure = { error };
        continue;
      }
      if (!more && this.#out.length === 0) return undefined;
    }
  }

  /** Runs `work`; a throw is kept to be reported after the records found before it. */
  #failing(work: () => void): void {
    try {
      work();
    } catch (error) {
      this.#failure ??= { error };
    }
  }

  /** The guard's whole records (at the end, all of its bytes), to be read by step(). */
  #records(atEnd: boolean): void {
    const pieces = this.#pieces;
    const emitted = pieces.reduce((n, p) => n + p.length, 0);
    const length = atEnd ? emitted : this.#guard.whole - this.#read;
    if (length === 0) return;
    const first = this.#read === 0;
    this.#read += length;
    const last = pieces[pieces.length - 1] as Uint8Array;
    const before = emitted - last.length;
    const inLast = length - before;
    if (
      !atEnd &&
      inLast > 0 &&
      (pieces[0] as Uint8Array)[0] !== (first ? BOM[0] : -1) &&
      pieces.every((p) => (p === last ? p.subarray(0, inLast) : p).indexOf(QUOTE_BYTE) === -1)
    ) {
      // No quote: every LF ends a record. The record begun in an earlier chunk ends at the last
      // piece's first LF; it alone is copied (a whole chunk's copy each time added ~20 MB of buffers
      // waiting for the garbage collector), the rest is decoded where it is.
      const k = before === 0 ? 0 : last.indexOf(LF) + 1;
      const head = before === 0 ? '' : decodeUtf8(Buffer.concat([...pieces.slice(0, -1), last.subarray(0, k)]));
      const rest = decodeUtf8(last.subarray(k, inLast));
      if (head !== undefined && rest !== undefined) {
        this.#text = head;
        this.#textNext = rest;
        this.#at = 0;
        this.#pieces = inLast < last.length ? [last.subarray(inLast)] : [];
        return;
      }
    }
    const all = pieces.length === 1 ? last : Buffer.concat(pieces);
    const bytes = all.subarray(0, length);
    this.#pieces = length < all.length ? [all.subarray(length)] : [];
    this.#rows = (this.#parse as ParseSync)(bytes, {
      ...CSV_OPTIONS,
      // LF or CRLF end a record; a lone CR is data, as in the NDJSON reader (src/bulk/lines.ts).
      record_delimiter: ['\r\n', '\n'],
      bom: first,
      on_skip: (error) => {
        if (error?.code !== 'CSV_QUOTE_NOT_CLOSED') throw error;
        this.#unterminated = true;
      },
    }) as unknown as { record: string[]; raw: string }[];
    this.#row = 0;
  }

  /** Reads the next row; false when there is none. */
  #step(): boolean {
    while (!this.#nextRow()) {
      const chunk = this.#chunk;
      if (chunk === undefined) return false;
      // A slice at a time: the records csv-parse reads together are alive together.
      const end = Math.min(this.#chunkAt + SLICE, chunk.length);
      this.#guard.scan(chunk.subarray(this.#chunkAt, end));
      this.#chunkAt = end;
      if (end === chunk.length) this.#chunk = undefined;
      this.#records(false);
    }
    return true;
  }

  /** Reads the next row of the records at hand; false when there is none. */
  #nextRow(): boolean {
    if (this.#at >= this.#text.length && this.#textNext !== '') {
      this.#text = this.#textNext;
      this.#textNext = '';
      this.#at = 0;
    }
    const text = this.#text;
    if (this.#at < text.length) {
      // Whole records with no quote: one a line, ending with LF or CRLF, fields between commas.
      const nl = text.indexOf('\n', this.#at);
      const end = nl > this.#at && text.charCodeAt(nl - 1) === CR ? nl - 1 : nl;
      const line = text.slice(this.#at, end);
      this.#at = nl + 1;
      if (this.#at >= text.length) this.#text = '';
      this.#record(line.split(','), line, 1, false);
      return true;
    }
    if (this.#row < this.#rows.length) {
      const { record, raw } = this.#rows[this.#row++] as { record: string[]; raw: string };
      if (this.#row === this.#rows.length) this.#rows = [];
      this.#record(record, raw, lineBreaks(raw), true);
      return true;
    }
    return false;
  }

  #guarded(g: GuardedRecord): InputRecord {
    // Before the header, there is nothing to read the records by.
    if (!this.#header) throw new UsageError(`line ${g.line}: ${g.problem}`);
    return { line: g.line, check: parseFailure(g.problem) };
  }

  /** A record the guard cut short before this point goes out first, and the line count moves past it. */
  #takeCut(): void {
    if (!this.#cut) return;
    this.#out.push(this.#guarded(this.#cut));
    this.#next = this.#cut.line + (this.#cut.lines as number);
    this.#cut = undefined;
  }

  /** One row: its fields, its text (blank or not), the line breaks it holds, and whether it may have been quoted. */
  #record(fields: string[], raw: string, breaks: number, quoted: boolean): void {
    const out = this.#out;
    const { guarded } = this.#guard;
    this.#takeCut();
    const start = this.#next;
    this.#next += breaks;
    // The guard lists records in input order, before they are read.
    let g = guarded[0];
    while (g && g.line < start) {
      out.push(this.#guarded(guarded.shift() as GuardedRecord));
      g = guarded[0];
    }
    if (g?.line === start) {
      guarded.shift();
      if (g.cut) this.#cut = g;
      else out.push(this.#guarded(g));
      return;
    }
    if (raw.trim() === '') return;
    // Inside a quoted field too, a CRLF reads as LF, as it does everywhere else.
    for (let i = 0; quoted && i < fields.length; i++) {
      const f = fields[i] as string;
      if (f.includes('\r\n')) fields[i] = f.replaceAll('\r\n', '\n');
    }
    const header = this.#header;
    if (!header) {
      const names = fields.map((f) => f.trim());
      const missing = REQUIRED_FIELDS.filter((c) => !names.includes(c));
      const unknown = names.filter((c) => !CSV_COLUMNS.has(c));
      if (missing.length > 0 || unknown.length > 0) {
        throw new UsageError(
          `line ${start}: CSV header must name the columns name,categoryId[,status]` +
            `${missing.length ? `; missing ${missing.join(', ')}` : ''}${unknown.length ? `; unknown ${unknown.join(', ')}` : ''}`,
        );
      }
      this.#header = names;
      this.#columns = csvColumns(names);
      return;
    }
    if (fields.length !== header.length) {
      out.push({ line: start, check: parseFailure(`expected ${header.length} columns (${header.join(',')}), got ${fields.length}`) });
      return;
    }
    const pet = this.#columns && quickCsvPet(fields, this.#columns);
    if (pet) {
      out.push({ line: start, check: { ok: true, pet } });
      return;
    }
    const row: Record<string, string> = {};
    header.forEach((name, i) => {
      row[name] = fields[i] ?? '';
    });
    out.push({ line: start, check: checkNewPet(row, true) });
  }

  /** After the last row: a record cut short at the end, the guard's records after the last row, a quote left open. */
  #end(): void {
    const out = this.#out;
    const { guarded } = this.#guard;
    this.#takeCut();
    for (const g of guarded) {
      // Not UTF-8 and a quote left open: csv-parse skipped it, and it is one record with two problems.
      if (this.#unterminated && g.line === this.#next && g === guarded.at(-1)) {
        this.#unterminated = false;
        out.push({ line: g.line, check: { ok: false, problems: [g.problem, 'unterminated quoted field'] } });
      } else out.push(this.#guarded(g));
    }
    guarded.length = 0;
    if (this.#unterminated) out.push({ line: this.#next, check: parseFailure('unterminated quoted field') });
    this.#unterminated = false;
  }
}

/** The records of a CSV input (see CsvReader). */
export function csvRecords(input: Readable, maxRecordBytes?: number): RecordStream {
  return new Records(input, new CsvReader(maxRecordBytes));
}

/** One top-level array element as a record, or the whole input's problem thrown. */
function elementRecord(e: Element): InputRecord {
  if ('fatal' in e) throw new UsageError(`line ${e.line}: ${e.fatal}`);
  return { line: e.line, check: 'problem' in e ? parseFailure(e.problem) : checkJsonRecord(e.source) };
}

/** Yields the source text of each top-level array element of a whole text with the line it starts on. */
export function* arrayElements(text: string): Generator<{ line: number; source: string }> {
  const scanner = new ArrayScanner();
  const out: Element[] = [];
  scanner.push(Buffer.from(text, 'utf8'), out);
  scanner.end(out);
  for (const e of out) {
    if ('source' in e) yield e;
    else throw new UsageError(`line ${e.line}: ${'fatal' in e ? e.fatal : e.problem}`);
  }
}

/** A JSON array, streamed: only the element being read is held, so any size reads in flat memory. */
class JsonArrayReader implements ChunkReader {
  readonly #scanner = new ArrayScanner();
  readonly #elements: Element[] = [];
  #at = 0;

  push(chunk: Uint8Array): void {
    this.#scanner.push(chunk, this.#elements);
  }

  end(): void {
    this.#scanner.end(this.#elements);
  }

  take(): InputRecord | undefined {
    if (this.#at < this.#elements.length) return elementRecord(this.#elements[this.#at++] as Element);
    this.#elements.length = 0;
    this.#at = 0;
    return undefined;
  }
}

/**
 * Reads NewPet records with their line numbers. All three formats are streamed: memory stays flat and
 * time linear whatever the input holds. A record past MAX_RECORD_BYTES or not UTF-8 is a problem of
 * its own, at its line, and reading goes on after it; a BOM is dropped. An abort of `signal` destroys
 * the input with the signal's reason, so the reading stops and rejects with it (between chunks: the
 * work on one chunk is short). (The readers are returned as they are: one more async generator around
 * them costs a promise per record, about 8 MB more peak memory over a 100,000-line dry run.)
 */
export function readRecords(input: Readable, format: InputFormat, signal?: AbortSignal): RecordStream {
  if (signal) {
    const onAbort = () => input.destroy(signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason)));
    if (signal.aborted) onAbort();
    else {
      signal.addEventListener('abort', onAbort, { once: true });
      input.once('close', () => signal.removeEventListener('abort', onAbort));
    }
  }
  switch (format) {
    case 'ndjson':
      return new Records(input, new NdjsonReader());
    case 'csv':
      return csvRecords(input);
    case 'json':
      return new Records(input, new JsonArrayReader());
  }
}
