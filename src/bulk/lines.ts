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

/** Where LineSplitter hands each line: its 1-based number and text, or its problem. */
export interface LineSink {
  /** The line is text.slice(start, end): no LF, no CR before it, no BOM (kept apart so that a line costs no copy). */
  line(line: number, text: string, start: number, end: number): void;
  problem(line: number, problem: string): void;
}

/**
 * Splits bytes into lines on LF (a CR before it is dropped), each with its 1-based number, as the
 * NDJSON reader needs them: a line past MAX_RECORD_BYTES is a problem, found without keeping its
 * bytes; a line that is not UTF-8 is a problem (never U+FFFD in its place); a byte order mark
 * before the first line is dropped. Lines are handed over one at a time, as asked for (next()): a
 * chunk's lines are not all made at once, so little is alive when the garbage collector runs, and
 * V8 keeps its young generation small (with all of a chunk's records made together, a dry run
 * peaked ~20 MB higher).
 */
export class LineSplitter {
  #line = 1;
  #held = new RecordBytes();
  /** A line begun in an earlier chunk and ended by the current one: handed over first. */
  #joined: Uint8Array | undefined | null = null;
  /** The current chunk's whole lines, decoded at once, and where the next one starts in it. */
  #text = '';
  #at = 0;
  /** ... or, when they are too long or not UTF-8 somewhere, their bytes, read line by line to say which. */
  #bytes: Uint8Array | undefined;

  constructor(private readonly sink: LineSink) {}

  /** Takes the next chunk: only once next() has returned false. */
  push(chunk: Uint8Array): void {
    let start = 0;
    if (this.#held.length > 0) {
      const nl = chunk.indexOf(LF);
      if (nl === -1) {
        this.#held.add(chunk, 0, chunk.length);
        return;
      }
      this.#held.add(chunk, 0, nl);
      this.#joined = this.#held.take();
      start = nl + 1;
    }
    const last = chunk.lastIndexOf(LF);
    if (last >= start) {
      const whole = chunk.subarray(start, last + 1);
      const text = whole.length <= MAX_RECORD_BYTES ? decodeUtf8(whole) : undefined;
      if (text === undefined) this.#bytes = whole;
      else this.#text = text;
      this.#at = 0;
    }
    this.#held.add(chunk, Math.max(start, last + 1), chunk.length);
  }

  /** At the end of the input: the last line, if the input does not end with LF, is next. */
  end(): void {
    if (this.#held.length > 0) this.#joined = this.#held.take();
  }

  /** Hands the sink the next line; false when the chunks given so far have no more. */
  next(): boolean {
    if (this.#joined !== null) {
      const bytes = this.#joined;
      this.#joined = null;
      this.#lineBytes(bytes);
      return true;
    }
    const text = this.#text;
    if (this.#at < text.length) {
      const nl = text.indexOf('\n', this.#at);
      this.#lineText(text, this.#at, nl);
      this.#at = nl + 1;
      if (this.#at === text.length) this.#text = '';
      return true;
    }
    const bytes = this.#bytes;
    if (bytes !== undefined) {
      const nl = bytes.indexOf(LF, this.#at);
      this.#lineBytes(bytes.subarray(this.#at, nl));
      this.#at = nl + 1;
      if (this.#at === bytes.length) this.#bytes = undefined;
      return true;
    }
    return false;
  }

  #lineBytes(bytes: Uint8Array | undefined): void {
    // The bound does not count the CR of a CRLF.
    if (bytes === undefined || bytes.length - (bytes[bytes.length - 1] === CR ? 1 : 0) > MAX_RECORD_BYTES) {
      this.sink.problem(this.#line++, TOO_LONG);
      return;
    }
    const text = decodeUtf8(bytes);
    if (text === undefined) {
      this.sink.problem(this.#line, notUtf8(bytes, this.#line));
      this.#line++;
    } else this.#lineText(text, 0, text.length);
  }

  #lineText(text: string, start: number, end: number): void {
    if (end > start && text.charCodeAt(end - 1) === CR) end--;
    if (this.#line === 1 && text.charCodeAt(start) === 0xfeff && start < end) start++;
    this.sink.line(this.#line++, text, start, end);
  }
}
