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

export type Line = { line: number; text: string } | { line: number; problem: string };

/**
 * Splits bytes into lines on LF (a CR before it is dropped), each with its 1-based number, as the
 * NDJSON reader needs them: a line past MAX_RECORD_BYTES is a problem, found without keeping its
 * bytes; a line that is not UTF-8 is a problem (never U+FFFD in its place); a byte order mark
 * before the first line is dropped.
 */
export class LineSplitter {
  #line = 1;
  #held = new RecordBytes();

  /** Adds the lines the chunk completes to `out`. */
  push(chunk: Uint8Array, out: Line[]): void {
    let start = 0;
    if (this.#held.length > 0) {
      const nl = chunk.indexOf(LF);
      if (nl === -1) {
        this.#held.add(chunk, 0, chunk.length);
        return;
      }
      this.#held.add(chunk, 0, nl);
      this.#bytes(this.#held.take(), out);
      start = nl + 1;
    }
    const last = chunk.lastIndexOf(LF);
    if (last >= start) this.#complete(chunk, start, last + 1, out);
    this.#held.add(chunk, Math.max(start, last + 1), chunk.length);
  }

  /** Adds the last line, if the input does not end with LF. */
  end(out: Line[]): void {
    if (this.#held.length > 0) this.#bytes(this.#held.take(), out);
  }

  /** Lines wholly inside one chunk, each ending with LF: decoded at once when they can be. */
  #complete(chunk: Uint8Array, from: number, to: number, out: Line[]): void {
    if (to - from <= MAX_RECORD_BYTES) {
      const text = decodeUtf8(chunk.subarray(from, to));
      if (text !== undefined) {
        let s = 0;
        for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', s)) {
          this.#text(text.slice(s, nl), out);
          s = nl + 1;
        }
        return;
      }
    }
    // Too long or not UTF-8 somewhere: line by line, to say which.
    for (let s = from; s < to; ) {
      const nl = chunk.indexOf(LF, s);
      this.#bytes(chunk.subarray(s, nl), out);
      s = nl + 1;
    }
  }

  #bytes(bytes: Uint8Array | undefined, out: Line[]): void {
    // The bound does not count the CR of a CRLF.
    if (bytes === undefined || bytes.length - (bytes[bytes.length - 1] === CR ? 1 : 0) > MAX_RECORD_BYTES) {
      out.push({ line: this.#line++, problem: TOO_LONG });
      return;
    }
    const text = decodeUtf8(bytes);
    if (text === undefined) {
      out.push({ line: this.#line, problem: notUtf8(bytes, this.#line) });
      this.#line++;
    } else this.#text(text, out);
  }

  #text(text: string, out: Line[]): void {
    let t = text.charCodeAt(text.length - 1) === CR ? text.slice(0, -1) : text;
    if (this.#line === 1 && t.charCodeAt(0) === 0xfeff) t = t.slice(1);
    out.push({ line: this.#line++, text: t });
  }
}
