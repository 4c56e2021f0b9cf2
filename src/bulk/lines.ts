import { CR, decodeUtf8, LF, MAX_RECORD_BYTES, notUtf8, RecordBytes, TOO_LONG } from './record-bytes.js';

/** One line of a bulk input: its 1-based number and text (no LF, no CR before it, no BOM), or its problem. */
export type RawLine = { line: number; text: string } | { line: number; problem: string };

/** A line's bytes (undefined: let go past the bound) as its text or its problem. */
function rawLine(line: number, bytes: Uint8Array | undefined, max: number): RawLine {
  // The bound does not count the CR of a CRLF.
  const end = bytes && bytes.length > 0 && bytes[bytes.length - 1] === CR ? bytes.length - 1 : bytes?.length;
  if (bytes === undefined || (end as number) > max) return { line, problem: TOO_LONG };
  const text = decodeUtf8(bytes.subarray(0, end));
  if (text === undefined) return { line, problem: notUtf8(bytes, line) };
  return { line, text: line === 1 && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text };
}

/**
 * Splits a byte stream into lines on LF (a CR before it is dropped), as the NDJSON reader needs them:
 * a line past MAX_RECORD_BYTES is a problem, found without keeping its bytes; a line that is not
 * UTF-8 is a problem (never U+FFFD in its place); a byte order mark before the first line is dropped.
 * Unlike node:readline it keeps U+2028/U+2029, which are legal inside JSON strings. (A journal's
 * lines, written by petstore, are read with no bound.)
 */
export class LineSplitter {
  readonly #held: RecordBytes;
  #line = 1;

  constructor(private readonly max = MAX_RECORD_BYTES) {
    this.#held = new RecordBytes(max);
  }

  /** The lines the chunk ends. */
  push(chunk: Uint8Array): RawLine[] {
    const out: RawLine[] = [];
    let start = 0;
    for (let nl = chunk.indexOf(LF); nl !== -1; nl = chunk.indexOf(LF, start)) {
      this.#held.add(chunk, start, nl);
      out.push(rawLine(this.#line++, this.#held.take(), this.max));
      start = nl + 1;
    }
    this.#held.add(chunk, start, chunk.length);
    return out;
  }

  /** The last line, when the input does not end with LF. */
  end(): RawLine[] {
    return this.#held.length > 0 ? [rawLine(this.#line, this.#held.take(), this.max)] : [];
  }
}
