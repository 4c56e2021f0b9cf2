import { BOM, CR, decodeUtf8, LF, MAX_RECORD_BYTES, notUtf8, RecordBytes, TOO_LONG } from './record-bytes.js';

/**
 * One top-level element of a JSON array: its source text (parsed by the caller, so int64 ids stay
 * exact), a problem with it alone, or `fatal`, a problem with the whole input that ends the reading.
 */
export type Element = { line: number; source: string } | { line: number; problem: string } | { line: number; fatal: string };

const BEFORE_ARRAY = 0;
const FIRST = 1; // after `[`: an element or `]`
const NEXT = 2; // after `,`: an element
const IN = 3;
const AFTER_ARRAY = 4;
const FAILED = 5;

const SPACE = 0x20;
const TAB = 0x09;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

const isSpace = (c: number) => c === SPACE || c === LF || c === CR || c === TAB;

/**
 * Finds the elements of a JSON array in a byte stream, chunk by chunk, keeping only the element being
 * read (at most MAX_RECORD_BYTES of it): the array's size does not matter. Only where an element
 * starts and ends is found here (strings, escapes and nesting tracked); each element's text is
 * checked by JSON.parse.
 */
export class ArrayScanner {
  #state = BEFORE_ARRAY;
  #line = 1;
  #offset = 0;
  #bom = 0;
  #elementLine = 0;
  #depth = 0;
  #inString = false;
  #escaped = false;
  #held = new RecordBytes();

  /** Adds the elements the chunk completes to `out`; after a `fatal` one, nothing more. */
  push(chunk: Uint8Array, out: Element[]): void {
    if (this.#state === FAILED) return;
    // Where the element being read starts in this chunk; -1 when it started in an earlier one.
    let from = -1;
    // The scanner's state in locals while the bytes are scanned (written back below).
    let state = this.#state;
    let line = this.#line;
    let depth = this.#depth;
    let inString = this.#inString;
    let escaped = this.#escaped;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i] as number;
      if (c === LF) line++;
      if (state === IN) {
        if (inString) {
          if (escaped) escaped = false;
          else if (c === BACKSLASH) escaped = true;
          else if (c === QUOTE) inString = false;
        } else if (c === QUOTE) inString = true;
        else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
        else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
          // A `}` too many stays in the element, for JSON.parse to reject.
          if (depth > 0) depth--;
          else if (c === CLOSE_BRACKET) {
            this.#element(chunk, from, i, out);
            state = AFTER_ARRAY;
          }
        } else if (c === COMMA && depth === 0) {
          this.#element(chunk, from, i, out);
          state = NEXT;
        }
      } else if (state === FIRST || state === NEXT) {
        if (isSpace(c)) continue;
        if (c === CLOSE_BRACKET && state === FIRST) {
          state = AFTER_ARRAY;
          continue;
        }
        state = IN;
        this.#elementLine = line;
        depth = 0;
        from = i;
        i--; // read this byte again, as the element's first
      } else if (state === BEFORE_ARRAY) {
        const at = this.#offset + i;
        if (at < 3 && this.#bom === at && c === BOM[at]) {
          this.#bom++;
          continue;
        }
        const noBom = this.#bom === 0 || this.#bom === 3;
        if (isSpace(c) && noBom) continue;
        if (c === OPEN_BRACKET && noBom) state = FIRST;
        else {
          this.#line = line;
          this.#fail(out, 'a JSON input must be an array of objects (use --format ndjson for one object per line)');
          return;
        }
      } else if (!isSpace(c)) {
        this.#line = line;
        this.#fail(out, 'unexpected text after the JSON array');
        return;
      }
    }
    this.#state = state;
    this.#line = line;
    this.#depth = depth;
    this.#inString = inString;
    this.#escaped = escaped;
    if (state === IN) this.#held.add(chunk, from === -1 ? 0 : from, chunk.length);
    this.#offset += chunk.length;
  }

  /** At the end of the input: a `fatal` element unless the array was closed. */
  end(out: Element[]): void {
    if (this.#state === BEFORE_ARRAY) this.#fail(out, 'a JSON input must be an array of objects (use --format ndjson for one object per line)');
    else if (this.#state !== AFTER_ARRAY && this.#state !== FAILED) this.#fail(out, 'the JSON array is not closed');
  }

  #fail(out: Element[], message: string): void {
    this.#state = FAILED;
    out.push({ line: this.#line, fatal: message });
  }

  /** The element that ends at `end` of this chunk (the `,` or `]` after it). */
  #element(chunk: Uint8Array, from: number, end: number, out: Element[]): void {
    const line = this.#elementLine;
    let bytes: Uint8Array | undefined;
    if (from === -1) {
      this.#held.add(chunk, 0, end);
      bytes = this.#held.take();
    } else bytes = chunk.subarray(from, end);
    if (bytes === undefined || bytes.length > MAX_RECORD_BYTES) {
      out.push({ line, problem: TOO_LONG });
      return;
    }
    const source = decodeUtf8(bytes);
    out.push(source === undefined ? { line, problem: notUtf8(bytes, line) } : { line, source });
  }
}
