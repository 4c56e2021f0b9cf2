import { isUtf8 } from 'node:buffer';
import { BOM, CR, LF, MAX_RECORD_BYTES, notUtf8, RecordBytes, TOO_LONG } from './record-bytes.js';

const QUOTE = 0x22;
/** What ends a record cut short for csv-parse: a closing quote if one is open, and an LF. */
const QUOTE_LF = Buffer.from('"\n');
const ONLY_LF = Buffer.from('\n');
const COMMA = 0x2c;

/** A record csv-parse must not be trusted with, at the line it starts on, and why. */
export interface GuardedRecord {
  line: number;
  problem: string;
  /**
   * Cut short at the bound: csv-parse saw the record's start only, ended there. `lines` is how many
   * line breaks the whole record holds, so the lines after it are counted right; listed as soon as it
   * is cut, the record has it from its real end on, before any byte after it reaches csv-parse.
   */
  cut: boolean;
  lines?: number;
}

/**
 * Stands in front of csv-parse and finds its records the way csv-parse does with the reader's options
 * (RFC 4180 quotes with relax_quotes, LF or CRLF between records), so that it can say which ones are
 * bad before csv-parse parses them: a record that is not UTF-8 (csv-parse would read U+FFFD) or longer
 * than MAX_RECORD_BYTES. A record that long (a quote left open, say) is cut there: csv-parse gets the
 * bytes that end it (a closing quote if one is open, an LF) and nothing more until the record's real
 * end, so it never holds more than the bound, and a stray quote costs one pass over the bytes. It
 * also says how many of the bytes it gave on make whole records (`whole`): the reader reads those
 * without waiting for more input.
 */
export class CsvGuard {
  /** In input order; the reader takes each when csv-parse's record at that line arrives. */
  readonly guarded: GuardedRecord[] = [];
  /** Bytes for csv-parse, in order (the input's, save those of a record cut short, and the ends of those records). */
  readonly #emit: (bytes: Uint8Array) => void;
  /** How many bytes were given to #emit, and how many of them make whole records (csv-parse's next record starts there). */
  #emitted = 0;
  #whole = 0;
  /** The bound, and where a record is cut: one past the bound by less, its line break aside, is reported as it ends. */
  readonly #max: number;
  readonly #keep: number;
  #line = 1;
  #recordLine = 1;
  /** Stream offset of this chunk, and of the record being read. */
  #offset = 0;
  #recordStart = 0;
  #bom = 0;
  #lastByte = 0;
  /** The record's bytes, for the UTF-8 check at its end (given to csv-parse as they come). */
  #held = new RecordBytes();
  /** Set while the record is past the bound: its bytes are dropped until it ends. */
  #cut: GuardedRecord | undefined;
  #inQuotes = false;
  #fieldEmpty = true;
  /** Inside quotes, a quote seen: closing, escaped, or data, by what follows. */
  #quote = false;
  /** ... and a CR after it: closing if an LF follows. */
  #quoteCr = false;

  /** `max`: the bound (a parameter so that tests can cut records a few bytes long). */
  constructor(emit: (bytes: Uint8Array) => void, max = MAX_RECORD_BYTES) {
    this.#emit = emit;
    this.#max = max;
    this.#keep = max + 2;
  }

  /** Of the bytes given to `emit` so far, how many make whole records: the rest is the start of a record. */
  get whole(): number {
    return this.#whole;
  }

  #push(bytes: Uint8Array): void {
    this.#emitted += bytes.length;
    this.#emit(bytes);
  }

  /** Reads the next chunk of the input, and gives `emit` the bytes csv-parse is to read. */
  scan(chunk: Uint8Array): void {
    const offset = this.#offset;
    // Bytes of this chunk before `passed` are handed on (or dropped); the record being read starts at
    // `start` in it, or in an earlier chunk when -1.
    let passed = 0;
    let start = this.#held.length > 0 || this.#cut ? -1 : 0;
    // The records wholly inside the chunk lie between its first byte or first LF and its last LF, and
    // LF never splits a character: one check covers them all unless something there is wrong.
    const lastLf = chunk.lastIndexOf(LF);
    const allUtf8 = lastLf !== -1 && isUtf8(chunk.subarray(start === 0 ? 0 : chunk.indexOf(LF) + 1, lastLf + 1));
    // The parser's state in locals while the bytes are scanned (written back below).
    let line = this.#line;
    let recordLine = this.#recordLine;
    let inQuotes = this.#inQuotes;
    let fieldEmpty = this.#fieldEmpty;
    let quote = this.#quote;
    let quoteCr = this.#quoteCr;
    // The record is cut at this index of the chunk, unless it ends before.
    let cutAt = this.#cut ? Number.POSITIVE_INFINITY : this.#recordStart + this.#keep - offset;
    // Where the next quote is (the chunk's length when none is left).
    let nextQuote = -1;
    for (let i = 0; i < chunk.length; i++) {
      if (!inQuotes && !quote && !quoteCr && offset + i >= 3) {
        // Outside quotes, only an LF (a record's end) and a quote (opening a field) change anything:
        // skip to the next of them, or to the cut.
        if (nextQuote < i) {
          nextQuote = chunk.indexOf(QUOTE, i);
          if (nextQuote === -1) nextQuote = chunk.length;
        }
        let j = chunk.indexOf(LF, i);
        if (j === -1 || j > nextQuote) j = nextQuote;
        if (j > cutAt) j = cutAt;
        if (j > i) {
          fieldEmpty = chunk[j - 1] === COMMA;
          i = j;
          if (i >= chunk.length) break;
        }
      }
      if (i >= cutAt) {
        cutAt = Number.POSITIVE_INFINITY;
        // This byte is one too many: end the record for csv-parse, as the state before it requires.
        this.#cut = { line: recordLine, problem: TOO_LONG, cut: true };
        this.guarded.push(this.#cut);
        if (i > passed) this.#push(chunk.subarray(passed, i));
        this.#push(inQuotes && !quote && !quoteCr ? QUOTE_LF : ONLY_LF);
        this.#whole = this.#emitted;
        this.#held = new RecordBytes();
      }
      const c = chunk[i] as number;
      if (offset + i < 3 && this.#bom === offset + i) {
        // csv-parse drops a BOM: the field after it is still empty.
        if (c === BOM[this.#bom]) {
          this.#bom++;
          continue;
        }
        // Not a BOM after all: its bytes were data.
        if (this.#bom > 0) fieldEmpty = false;
        this.#bom = 3;
      }
      if (quoteCr) {
        // `"` CR LF closes the field (and the LF ends the record); `"` CR anything else is data, the
        // field unquoted from here on.
        quoteCr = false;
        inQuotes = false;
        fieldEmpty = false;
      } else if (quote) {
        quote = false;
        if (c === QUOTE) continue; // "" inside quotes: one quote
        if (c === CR) {
          quoteCr = true;
          continue;
        }
        // A quote followed by a comma, an LF or NUL (csv-parse tests for a falsy next byte) closes the
        // field; followed by anything else it is data, and the field unquoted from here on.
        inQuotes = false;
        fieldEmpty = false;
      } else if (inQuotes) {
        if (c === QUOTE) quote = true;
        else if (c === LF) line++;
        continue;
      }
      if (c === QUOTE && fieldEmpty) inQuotes = true;
      else if (c === COMMA) fieldEmpty = true;
      else if (c === LF) {
        line++;
        const end = i + 1;
        if (this.#cut) {
          this.#cut.lines = line - recordLine;
          this.#cut = undefined;
          passed = end;
        } else {
          // Its length without the line break (the cut, at #keep bytes, leaves room for a CR LF).
          const cr = i > 0 ? chunk[i - 1] === CR : this.#lastByte === CR;
          if (offset + i - this.#recordStart - (cr ? 1 : 0) > this.#max) {
            this.guarded.push({ line: recordLine, problem: TOO_LONG, cut: false });
            if (start === -1) this.#held.take();
          } else if (start === -1) {
            this.#held.add(chunk, 0, end);
            this.#check(this.#held.take() as Uint8Array, recordLine);
          } else if (!allUtf8) this.#check(chunk.subarray(start, end), recordLine);
          // The chunk's bytes from `passed` on are given on together, below.
          this.#whole = this.#emitted + end - passed;
        }
        start = end;
        fieldEmpty = true;
        recordLine = line;
        this.#recordStart = offset + end;
        cutAt = end + this.#keep;
      } else fieldEmpty = false;
    }
    this.#line = line;
    this.#recordLine = recordLine;
    this.#inQuotes = inQuotes;
    this.#fieldEmpty = fieldEmpty;
    this.#quote = quote;
    this.#quoteCr = quoteCr;
    if (!this.#cut) {
      if (chunk.length > passed) this.#push(passed === 0 ? chunk : chunk.subarray(passed));
      this.#held.add(chunk, start === -1 ? 0 : start, chunk.length);
    }
    this.#offset += chunk.length;
    this.#lastByte = chunk[chunk.length - 1] ?? this.#lastByte;
  }

  /** At the end of the input. */
  flush(): void {
    if (this.#cut) {
      this.#cut.lines = this.#line - this.#recordLine;
      // A quote still open at the end is the "unterminated quoted field" csv-parse reports below the bound.
      if (this.#inQuotes && !this.#quote && !this.#quoteCr) this.#cut.problem = 'unterminated quoted field';
    } else if (this.#held.length > this.#max) this.guarded.push({ line: this.#recordLine, problem: TOO_LONG, cut: false });
    else if (this.#held.length > 0) this.#check(this.#held.take() as Uint8Array, this.#recordLine);
  }

  #check(bytes: Uint8Array, line: number): void {
    if (!isUtf8(bytes)) this.guarded.push({ line, problem: notUtf8(bytes, line), cut: false });
  }
}
