import { decodeUtf8, LF, MAX_RECORD_BYTES, notUtf8, RecordBytes, TOO_LONG } from './record-bytes.js';

/** One top-level element of a JSON array: its source text, a problem with it alone, or `fatal`, a problem with the whole input. */
export type Element = { line: number; source: string } | { line: number; problem: string } | { line: number; fatal: string };

const NOT_AN_ARRAY = 'a JSON input must be an array of objects (use --format ndjson for one object per line)';
const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** Finds where a JSON array's elements start and end, holding only the one being read (flat memory); JSON.parse checks each. */
export class ArrayScanner {
  #state: 'before' | 'first' | 'next' | 'in' | 'after' | 'failed' = 'before';
  #line = 1;
  #elementLine = 0;
  #depth = 0;
  #inString = false;
  #escaped = false;
  #held = new RecordBytes();
  /** The chunk being scanned, where its element starts (-1: in an earlier chunk), and the elements found. */
  #chunk: Uint8Array = new Uint8Array(0);
  #from = -1;
  #out: Element[] = [];

  /** The elements the chunk completes; after a `fatal` one, nothing more. */
  push(chunk: Uint8Array): Element[] {
    this.#chunk = chunk;
    this.#from = -1;
    this.#out = [];
    for (let i = 0; i < chunk.length && this.#state !== 'failed'; i++) {
      const c = chunk[i] as number;
      if (c === LF) this.#line++;
      if (this.#state === 'in') this.#inElement(c, i);
      else if (this.#state === 'first' || this.#state === 'next') this.#beforeElement(c, i);
      else if (this.#state === 'before') this.#beforeArray(c);
      else if (!isSpace(c)) this.#fail('unexpected text after the JSON array');
    }
    if (this.#state === 'in') this.#held.add(chunk, this.#from === -1 ? 0 : this.#from, chunk.length);
    return this.#out;
  }

  /** At the end of the input: a `fatal` element unless the array was closed. */
  end(): Element[] {
    this.#out = [];
    if (this.#state === 'before') this.#fail(NOT_AN_ARRAY);
    else if (this.#state !== 'after' && this.#state !== 'failed') this.#fail('the JSON array is not closed');
    return this.#out;
  }

  #beforeArray(c: number): void {
    if (c === 0x5b) this.#state = 'first';
    else if (!isSpace(c)) this.#fail(NOT_AN_ARRAY);
  }

  #beforeElement(c: number, i: number): void {
    if (isSpace(c)) return;
    if (c === 0x5d && this.#state === 'first') {
      this.#state = 'after';
      return;
    }
    this.#state = 'in';
    this.#elementLine = this.#line;
    this.#depth = 0;
    this.#from = i;
    this.#inElement(c, i);
  }

  #inElement(c: number, i: number): void {
    if (this.#inString) {
      if (this.#escaped) this.#escaped = false;
      else if (c === 0x5c) this.#escaped = true;
      else if (c === 0x22) this.#inString = false;
    } else if (c === 0x22) this.#inString = true;
    else if (c === 0x7b || c === 0x5b) this.#depth++;
    else if (c === 0x7d || c === 0x5d) {
      // A `}` too many stays in the element, for JSON.parse to reject.
      if (this.#depth > 0) this.#depth--;
      else if (c === 0x5d) this.#element(i, 'after');
    } else if (c === 0x2c && this.#depth === 0) this.#element(i, 'next');
  }

  #fail(message: string): void {
    this.#state = 'failed';
    this.#out.push({ line: this.#line, fatal: message });
  }

  /** The element that ends at `end` of this chunk (the `,` or `]` after it). */
  #element(end: number, next: 'next' | 'after'): void {
    this.#state = next;
    const line = this.#elementLine;
    this.#held.add(this.#chunk, this.#from === -1 ? 0 : this.#from, end);
    const bytes = this.#held.take();
    if (bytes === undefined || bytes.length > MAX_RECORD_BYTES) {
      this.#out.push({ line, problem: TOO_LONG });
      return;
    }
    const source = decodeUtf8(bytes);
    this.#out.push(source === undefined ? { line, problem: notUtf8(bytes, line) } : { line, source });
  }
}
