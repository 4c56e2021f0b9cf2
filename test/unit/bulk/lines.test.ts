import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LineSplitter } from '../../../src/bulk/lines.js';

async function collect(chunks: (string | Buffer)[]): Promise<string[]> {
  const splitter = new LineSplitter();
  const raw = [...chunks.flatMap((c) => splitter.push(Buffer.from(c))), ...splitter.end()];
  return raw.map((l) => ('text' in l ? l.text : l.problem));
}

describe('LineSplitter', () => {
  it('splits on LF and CRLF only, keeping U+2028/U+2029 and a lone CR inside a line', async () => {
    expect(await collect(['a\r\nb\u2028c\nd\u2029e\rf\n'])).toEqual(['a', 'b\u2028c', 'd\u2029e\rf']);
  });
  it('yields a last line without a newline, and nothing for empty input', async () => {
    expect(await collect(['x\ny'])).toEqual(['x', 'y']);
    expect(await collect([])).toEqual([]);
    expect(await collect(['\n'])).toEqual(['']);
  });
  it('is independent of how the bytes are chunked, multi-byte characters included (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.string({ unit: 'grapheme' }).map((s) => s.replaceAll('\n', '')),
          { maxLength: 6 },
        ),
        fc.array(fc.nat(), { maxLength: 5 }),
        async (ls, cuts) => {
          const bytes = Buffer.from(ls.map((l) => `${l}\n`).join(''), 'utf8');
          const points = [...new Set(cuts.map((c) => (bytes.length ? c % bytes.length : 0)))].sort((a, b) => a - b);
          const chunks: Buffer[] = [];
          let at = 0;
          for (const p of points) {
            chunks.push(bytes.subarray(at, p));
            at = p;
          }
          chunks.push(bytes.subarray(at));
          expect(await collect(chunks.filter((c) => c.length > 0))).toEqual(ls.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l)));
        },
      ),
      { numRuns: 200 },
    );
  });
});
