import { CR, decodeUtf8, LF, MAX_RECORD_BYTES, notUtf8, RecordBytes, TOO_LONG } from './record-bytes.js';

/** One line of a bulk input: its 1-based number and text (no LF, no CR before it), or its problem. */
export type RawLine = { line: number; text: string } | { line: number; problem: string };

/** A line's text without the CR of a CRLF. */
function textLine(line: number, text: string): RawLine {
  return { line, text: text.endsWith('\r') ? text.slice(0, -1) : text };
}

/** A line's bytes (undefined: let go past the bound) as its text or its problem. */
function rawLine(line: number, bytes: Uint8Array | undefined, max: number): RawLine {
  // The bound does not count the CR of a CRLF.
  if (bytes === undefined || bytes.length - (bytes.at(-1) === CR ? 1 : 0) > max) return { line, problem: TOO_LONG };
  const text = decodeUtf8(bytes);
  return text === undefined ? { line, problem: notUtf8(bytes, line) } : textLine(line, text);
}

/** Splits bytes into lines on LF (a CR before it dropped), keeping U+2028/U+2029 unlike readline; a bad line is a problem of its own. */
export class LineSplitter {
  readonly #held: RecordBytes;
  #line = 1;

  constructor(private readonly max = MAX_RECORD_BYTES) {
    this.#held = new RecordBytes(max);
  }

  push(chunk: Uint8Array): RawLine[] {
    const out: RawLine[] = [];
    const last = chunk.lastIndexOf(LF);
    let start = 0;
    if (last !== -1 && this.#held.length > 0) {
      // The line begun in an earlier chunk.
      start = chunk.indexOf(LF) + 1;
      this.#held.add(chunk, 0, start - 1);
      out.push(rawLine(this.#line++, this.#held.take(), this.max));
    }
    if (last >= start) {
      // The chunk's whole lines, decoded together when they are UTF-8 and within the bound together.
      const text = last - start <= this.max ? decodeUtf8(chunk.subarray(start, last)) : undefined;
      if (text !== undefined) for (const piece of text.split('\n')) out.push(textLine(this.#line++, piece));
      else this.#eachLine(chunk, start, last, out);
    }
    this.#held.add(chunk, last + 1, chunk.length);
    return out;
  }

  /** The lines of chunk[start, last] one by one, to say which is too long or not UTF-8. */
  #eachLine(chunk: Uint8Array, start: number, last: number, out: RawLine[]): void {
    for (let nl = chunk.indexOf(LF, start); nl !== -1 && nl <= last; nl = chunk.indexOf(LF, start)) {
      out.push(rawLine(this.#line++, chunk.subarray(start, nl), this.max));
      start = nl + 1;
    }
  }

  /** The last line, when the input does not end with LF. */
  end(): RawLine[] {
    return this.#held.length > 0 ? [rawLine(this.#line, this.#held.take(), this.max)] : [];
  }
}
