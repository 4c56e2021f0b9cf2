import type { Readable } from 'node:stream';
import { CR, decodeUtf8, LF, MAX_RECORD_BYTES, notUtf8, RecordBytes, TOO_LONG } from './record-bytes.js';

/**
 * Yields the lines of a UTF-8 stream, split on LF only (a CR before it is
 * dropped). Unlike node:readline it keeps U+2028/U+2029, which are legal
 * inside JSON strings and CSV fields. A line split across chunks is joined
 * once, when it ends, so a long line costs time in proportion to its length.
 */
export async function* lines(input: Readable): AsyncGenerator<string> {
  input.setEncoding('utf8');
  let parts: string[] = [];
  const done = (line: string) => (line.endsWith('\r') ? line.slice(0, -1) : line);
  for await (const chunk of input) {
    const text = chunk as string;
    let start = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
      let line = text.slice(start, nl);
      if (parts.length > 0) {
        parts.push(line);
        line = parts.join('');
        parts = [];
      }
      yield done(line);
      start = nl + 1;
    }
    if (start < text.length) parts.push(text.slice(start));
  }
  if (parts.length > 0) yield done(parts.join(''));
}

/** One line of a bulk input: its 1-based number and text (no LF, no CR before it, no BOM), or its problem. */
export type RawLine = { line: number; text: string } | { line: number; problem: string };

/** A line's bytes (undefined: let go past the bound) as its text or its problem. */
function rawLine(line: number, bytes: Uint8Array | undefined): RawLine {
  // The bound does not count the CR of a CRLF.
  const end = bytes && bytes.length > 0 && bytes[bytes.length - 1] === CR ? bytes.length - 1 : bytes?.length;
  if (bytes === undefined || (end as number) > MAX_RECORD_BYTES) return { line, problem: TOO_LONG };
  const text = decodeUtf8(bytes.subarray(0, end));
  if (text === undefined) return { line, problem: notUtf8(bytes, line) };
  return { line, text: line === 1 && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text };
}

/**
 * Splits a byte stream into lines on LF (a CR before it is dropped), as the NDJSON reader needs them:
 * a line past MAX_RECORD_BYTES is a problem, found without keeping its bytes; a line that is not
 * UTF-8 is a problem (never U+FFFD in its place); a byte order mark before the first line is dropped.
 * Unlike node:readline it keeps U+2028/U+2029, which are legal inside JSON strings.
 */
export class LineSplitter {
  readonly #held = new RecordBytes();
  #line = 1;

  /** The lines the chunk ends. */
  push(chunk: Uint8Array): RawLine[] {
    const out: RawLine[] = [];
    let start = 0;
    for (let nl = chunk.indexOf(LF); nl !== -1; nl = chunk.indexOf(LF, start)) {
      this.#held.add(chunk, start, nl);
      out.push(rawLine(this.#line++, this.#held.take()));
      start = nl + 1;
    }
    this.#held.add(chunk, start, chunk.length);
    return out;
  }

  /** The last line, when the input does not end with LF. */
  end(): RawLine[] {
    return this.#held.length > 0 ? [rawLine(this.#line, this.#held.take())] : [];
  }
}
