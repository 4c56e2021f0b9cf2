import type { Readable } from 'node:stream';

/**
 * Yields the lines of a UTF-8 stream, split on LF only (a CR before it is
 * dropped). Unlike node:readline it keeps U+2028/U+2029, which are legal
 * inside JSON strings and CSV fields.
 */
export async function* lines(input: Readable): AsyncGenerator<string> {
  input.setEncoding('utf8');
  let rest = '';
  for await (const chunk of input) {
    const text = rest + (chunk as string);
    let start = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
      const end = nl > start && text[nl - 1] === '\r' ? nl - 1 : nl;
      yield text.slice(start, end);
      start = nl + 1;
    }
    rest = text.slice(start);
  }
  if (rest !== '') yield rest.endsWith('\r') ? rest.slice(0, -1) : rest;
}
