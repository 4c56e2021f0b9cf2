import type { Readable } from 'node:stream';
import { UsageError } from '../errors/errors.js';
import { checkNewPet, type InputRecord, NEW_PET_FIELDS, REQUIRED_FIELDS } from './new-pet-record.js';
import { CR, decodeUtf8, LF, MAX_RECORD_BYTES, notUtf8, RecordBytes, TOO_LONG, inputBytes } from './record-bytes.js';

const QUOTE = 0x22;
const COMMA = 0x2c;
const UNTERMINATED = 'unterminated quoted field';

/** One CSV record as the splitter finds it: the line it starts on, and its text (its line break included) or its problems. */
type RawRecord = { line: number; text: string } | { line: number; problems: string[] };

/** Finds where each record ends as csv-parse does, so a record not UTF-8 or past the bound is its own problem, in flat memory. */
class CsvSplitter {
  #line = 1;
  #recordLine = 1;
  #inQuotes = false;
  #fieldEmpty = true;
  /** Inside quotes, a quote seen: closing, escaped, or data, by what follows. */
  #quote = false;
  /** ... and a CR after it: closing if an LF follows. */
  #quoteCr = false;
  readonly #held: RecordBytes;

  constructor(private readonly max = MAX_RECORD_BYTES) {
    this.#held = new RecordBytes(max);
  }

  push(chunk: Uint8Array): RawRecord[] {
    const out: RawRecord[] = [];
    let start = 0;
    for (let i = 0; i < chunk.length; i++) {
      if (!this.#endsRecord(chunk[i] as number)) continue;
      this.#held.add(chunk, start, i + 1);
      out.push(this.#record(this.#held.take(), true));
      start = i + 1;
      this.#recordLine = this.#line;
    }
    this.#held.add(chunk, start, chunk.length);
    return out;
  }

  /** The last record, when the input does not end with a line break. */
  end(): RawRecord[] {
    if (this.#held.length === 0) return [];
    const record = this.#record(this.#held.take(), false);
    // A quote left open at the end: csv-parse finds it in a record it reads; one it is not given is
    // reported here (past the bound, unterminated is the problem).
    const open = this.#inQuotes && !this.#quote && !this.#quoteCr;
    if (!open || 'text' in record) return [record];
    return [{ line: record.line, problems: record.problems[0] === TOO_LONG ? [UNTERMINATED] : [...record.problems, UNTERMINATED] }];
  }

  /** Reads one byte: true when it is the LF that ends a record. */
  #endsRecord(c: number): boolean {
    if (this.#quoteCr) {
      // `"` CR LF closes the field; `"` CR anything else is data, the field unquoted from here on.
      this.#quoteCr = false;
      this.#closeQuote();
    } else if (this.#quote) {
      this.#quote = false;
      if (c === QUOTE) return false; // "" inside quotes: one quote
      if (c === CR) {
        this.#quoteCr = true;
        return false;
      }
      // A quote followed by a comma or an LF closes the field; followed by anything else it is data.
      this.#closeQuote();
    } else if (this.#inQuotes) {
      if (c === QUOTE) this.#quote = true;
      else if (c === LF) this.#line++;
      return false;
    }
    if (c === QUOTE && this.#fieldEmpty) this.#inQuotes = true;
    else this.#fieldEmpty = c === COMMA || c === LF;
    if (c !== LF) return false;
    this.#line++;
    return true;
  }

  #closeQuote(): void {
    this.#inQuotes = false;
    this.#fieldEmpty = false;
  }

  /** A record's bytes (undefined: let go past the bound) as its text or its problems. */
  #record(bytes: Uint8Array | undefined, ended: boolean): RawRecord {
    const line = this.#recordLine;
    if (bytes === undefined || bytes.length - breakBytes(bytes, ended) > this.max) return { line, problems: [TOO_LONG] };
    const text = decodeUtf8(bytes);
    if (text === undefined) return { line, problems: [notUtf8(bytes, line)] };
    return { line, text };
  }
}

/** The bytes of the line break that ends a record (LF or CR LF), which the bound does not count. */
function breakBytes(bytes: Uint8Array, ended: boolean): number {
  if (!ended) return 0;
  return bytes.length > 1 && bytes[bytes.length - 2] === CR ? 2 : 1;
}

type ParseSync = typeof import('csv-parse/sync').parse;

/** csv-parse's options: what the splitter assumes of it. */
const CSV_OPTIONS = {
  // A quote inside an unquoted field is data; a row with the wrong column count is reported for that
  // row alone instead of failing the input.
  relax_quotes: true,
  relax_column_count: true,
  // Blank lines stay records here, so each record the splitter found is one row.
  skip_empty_lines: false,
  // LF or CRLF end a record; a lone CR is data, as in the NDJSON reader.
  record_delimiter: ['\r\n', '\n'],
  // The only error these options leave is a quote still open at the end of the input: reported for that record.
  skip_records_with_error: true,
};

/** Reads the splitter's records as pets: the first one that is not blank is the header. */
class CsvRows {
  #header: string[] | undefined;

  constructor(private readonly parse: ParseSync) {}

  /** The records of a batch of raw ones, in order; throws on a bad header, or a problem before it. */
  read(raws: RawRecord[]): InputRecord[] {
    const out: InputRecord[] = [];
    let batch: { line: number; text: string }[] = [];
    for (const raw of raws) {
      if ('text' in raw) {
        batch.push(raw);
        continue;
      }
      this.#rows(batch, out);
      batch = [];
      if (!this.#header) throw new UsageError(`line ${raw.line}: ${raw.problems.join('; ')}`);
      out.push({ line: raw.line, check: { ok: false, problems: raw.problems } });
    }
    this.#rows(batch, out);
    return out;
  }

  /** Well-formed records, parsed together by csv-parse: one row each (the last may be unterminated). */
  #rows(batch: { line: number; text: string }[], out: InputRecord[]): void {
    if (batch.length === 0) return;
    let unterminated = false;
    const rows = this.parse(batch.map((r) => r.text).join(''), {
      ...CSV_OPTIONS,
      on_skip: (error) => {
        if (error?.code !== 'CSV_QUOTE_NOT_CLOSED') throw error;
        unterminated = true;
      },
    }) as string[][];
    for (let i = 0; i < rows.length; i++) {
      const { line, text } = batch[i] as { line: number; text: string };
      if (text.trim() === '') continue;
      const record = this.#row(line, rows[i] as string[]);
      if (record) out.push(record);
    }
    if (unterminated) out.push({ line: (batch.at(-1) as { line: number }).line, check: { ok: false, problems: [UNTERMINATED] } });
  }

  /** One row that is not blank: the header, or a record read by it. */
  #row(line: number, fields: string[]): InputRecord | undefined {
    // Inside a quoted field too, a CRLF reads as LF, as it does everywhere else.
    const values = fields.map((f) => (f.includes('\r\n') ? f.replaceAll('\r\n', '\n') : f));
    const header = this.#header;
    if (!header) {
      this.#header = checkHeader(line, values);
      return undefined;
    }
    if (values.length !== header.length) {
      return { line, check: { ok: false, problems: [`expected ${header.length} columns (${header.join(',')}), got ${values.length}`] } };
    }
    const row: Record<string, string> = {};
    header.forEach((name, i) => {
      row[name] = values[i] ?? '';
    });
    return { line, check: checkNewPet(row, true) };
  }
}

/** The header's column names; a UsageError unless it names the columns a pet needs and no others. */
function checkHeader(line: number, fields: string[]): string[] {
  const names = fields.map((f) => f.trim());
  const missing = REQUIRED_FIELDS.filter((c) => !names.includes(c));
  const unknown = names.filter((c) => !NEW_PET_FIELDS.includes(c));
  if (missing.length > 0 || unknown.length > 0) {
    throw new UsageError(
      `line ${line}: CSV header must name the columns name,categoryId[,status]` +
        `${missing.length ? `; missing ${missing.join(', ')}` : ''}${unknown.length ? `; unknown ${unknown.join(', ')}` : ''}`,
    );
  }
  return names;
}

/** RFC 4180 records with their first lines: CsvSplitter finds them, csv-parse (loaded only for CSV) reads their fields. `maxRecordBytes`: for tests. */
export async function* csvRecords(input: Readable, maxRecordBytes?: number): AsyncGenerator<InputRecord[]> {
  const { parse } = await import('csv-parse/sync');
  const splitter = new CsvSplitter(maxRecordBytes);
  const rows = new CsvRows(parse);
  for await (const chunk of inputBytes(input)) yield rows.read(splitter.push(chunk));
  yield rows.read(splitter.end());
}
