import { isUtf8 } from 'node:buffer';

/** The most bytes one record may hold: one past it is reported by line and skipped without keeping its bytes. */
export const MAX_RECORD_BYTES = 1024 * 1024;
export const TOO_LONG = 'record longer than 1 MiB';

export const LF = 0x0a;
export const CR = 0x0d;
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The bytes as text, or undefined when they are not valid UTF-8 (never U+FFFD in their place). */
export function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return decoder.decode(bytes);
  } catch {
    return undefined;
  }
}

/** The problem for a record starting on `line` whose bytes are not UTF-8, naming the line of the first bad byte. */
export function notUtf8(bytes: Uint8Array, line: number): string {
  let at = line;
  // LF never occurs inside a multi-byte character, so each line can be checked on its own.
  for (let start = 0; start <= bytes.length; ) {
    const nl = bytes.indexOf(LF, start);
    const end = nl === -1 ? bytes.length : nl;
    if (!isUtf8(bytes.subarray(start, end))) break;
    if (nl === -1) break;
    at++;
    start = nl + 1;
  }
  return at === line ? 'not valid UTF-8' : `not valid UTF-8 (on line ${at})`;
}

/** One record's bytes gathered across chunks; past the bound (+2 for a CR LF) they are let go and only counted, so a record costs at most the bound. */
export class RecordBytes {
  #parts: Uint8Array[] = [];
  #length = 0;

  constructor(private readonly max = MAX_RECORD_BYTES) {}

  get length(): number {
    return this.#length;
  }

  add(chunk: Uint8Array, start: number, end: number): void {
    if (end <= start) return;
    this.#length += end - start;
    if (this.#length > this.max + 2) this.#parts = [];
    else this.#parts.push(chunk.subarray(start, end));
  }

  /** The record's bytes (undefined when they were let go), and starts the next record. */
  take(): Uint8Array | undefined {
    const parts = this.#parts;
    const kept = this.#length <= this.max + 2;
    this.#parts = [];
    this.#length = 0;
    if (!kept) return undefined;
    return parts.length === 1 ? (parts[0] as Uint8Array) : Buffer.concat(parts);
  }
}

/** An input's chunks as bytes (a string chunk, as in tests, as its UTF-8) without the byte order mark that may begin it. */
export async function* inputBytes(input: AsyncIterable<unknown> | Iterable<unknown>): AsyncGenerator<Uint8Array> {
  let head: Buffer | undefined = Buffer.alloc(0);
  for await (const chunk of input) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : (chunk as Uint8Array);
    if (head === undefined) {
      yield bytes;
      continue;
    }
    head = Buffer.concat([head, bytes]);
    if (head.length < 3 && BOM.subarray(0, head.length).equals(head)) continue;
    yield head.subarray(0, 3).equals(BOM) ? head.subarray(3) : head;
    head = undefined;
  }
  if (head !== undefined && head.length > 0) yield head;
}
