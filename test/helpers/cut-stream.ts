import { Readable } from 'node:stream';

/** A byte stream like a file's: the bytes cut at the given offsets (taken modulo the length, deduplicated). */
export function cutStream(bytes: Buffer, cuts: number[]): Readable {
  const r = new Readable({ read() {} });
  let at = 0;
  for (const c of [...new Set(cuts.map((x) => x % (bytes.length + 1)))].sort((a, b) => a - b)) {
    r.push(bytes.subarray(at, c));
    at = c;
  }
  r.push(bytes.subarray(at));
  r.push(null);
  return r;
}
