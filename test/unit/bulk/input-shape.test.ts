// Input at any size and shape (issue #14, item 6): a record past 1 MiB is one line-numbered problem
// found without holding it, and the records after it are read; a BOM is accepted and invalid UTF-8
// named by line in every format; JSON arrays are streamed; an abort stops the reading in every format.
// The inputs of many megabytes have vitest's timeout as their guard: a reader that went quadratic
// again (or held a record whole) takes tens of seconds on them, not milliseconds.
import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { LineSplitter, type RawLine } from '../../../src/bulk/lines.js';

const text = (l: RawLine) => ('text' in l ? l.text : l.problem);
import { readRecords, sniffFormat, type InputFormat, type InputRecord } from '../../../src/bulk/read-records.js';

const MiB = 1024 * 1024;
const BIG = 20 * MiB;
const TIMEOUT = 15_000;
const TOO_LONG = { ok: false, problems: ['record longer than 1 MiB'] };
const NOT_UTF8 = { ok: false, problems: ['not valid UTF-8'] };
const pet = (name: string, categoryId: number | bigint) => ({ ok: true, pet: { name, categoryId: BigInt(categoryId) } });

const bytes = (...parts: (string | number[])[]) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : Buffer.from(p))));

/** The bytes as a stream of Buffers of `size` bytes (a file stream's are 64 KiB). */
function stream(data: Buffer, size = 65_536): Readable {
  return Readable.from(
    (function* () {
      for (let i = 0; i < data.length; i += size) yield data.subarray(i, i + size);
    })(),
  );
}

async function read(data: Buffer, format: InputFormat, size?: number): Promise<InputRecord[]> {
  const out: InputRecord[] = [];
  for await (const r of readRecords(stream(data, size), format)) out.push(r);
  return out;
}

const summary = (rs: InputRecord[]) => rs.map((r) => [r.line, r.check]);

/** Records of exactly `n` bytes. */
const jsonOf = (n: number) => `{"name":"${'y'.repeat(n - 26)}","categoryId":1}`;

/** The bound: records of MiB bytes are read, MiB + 1 are too long, whatever the chunks. */
async function bound(format: InputFormat, text: string, oks: boolean[]): Promise<void> {
  for (const size of [65_536, 4 * MiB]) {
    const rs = await read(Buffer.from(text), format, size);
    expect(
      rs.map((r) => r.check.ok),
      `chunks of ${size}`,
    ).toEqual(oks);
    for (const r of rs) if (!r.check.ok) expect(r.check).toEqual(TOO_LONG);
  }
}

/** A BOM before the input, whole or split across chunks. */
async function bom(format: InputFormat, text: string): Promise<void> {
  for (const size of [1, 2, 65_536]) {
    const rs = await read(bytes([0xef, 0xbb, 0xbf], text), format, size);
    expect(rs.map((r) => r.check)).toEqual([pet('a', 1), pet('b', 2)]);
  }
}

/** An abort in the middle of a record past the bound, the input still open: the reading rejects with the reason. */
async function abortInside(format: InputFormat, start: string, before: number[]): Promise<void> {
  const input = new PassThrough();
  input.write(start);
  input.write('x'.repeat(2 * MiB));
  const ac = new AbortController();
  const reason = new Error('stop');
  const seen: number[] = [];
  const reading = (async () => {
    for await (const r of readRecords(input, format, ac.signal)) seen.push(r.line);
  })();
  setTimeout(() => ac.abort(reason), 20);
  await expect(reading).rejects.toBe(reason);
  expect(seen).toEqual(before);
  expect(input.destroyed).toBe(true);
}

describe('NDJSON', () => {
  for (const size of [65_536, BIG + 100]) {
    it(
      `a 20 MB line is "line 2: record longer than 1 MiB", and the lines after it are read (${size > BIG ? 'one chunk' : '64 KiB chunks'})`,
      async () => {
        const data = bytes('{"name":"a","categoryId":1}\n{"name":"', 'x'.repeat(BIG), '","categoryId":2}\r\n\n{"name":"c","categoryId":3}');
        expect(summary(await read(data, 'ndjson', size))).toEqual([
          [1, pet('a', 1)],
          [2, TOO_LONG],
          [4, pet('c', 3)],
        ]);
      },
      TIMEOUT,
    );
  }

  it('bounds a line at 1 MiB exactly, its CR not counted', async () => {
    expect(jsonOf(MiB)).toHaveLength(MiB);
    await bound('ndjson', `${jsonOf(MiB)}\r\n${jsonOf(MiB + 1)}\n`, [true, false]);
  });

  it('bounds the first line at 1 MiB of its own, a BOM before it not counted', async () => {
    await bound('ndjson', `\uFEFF${jsonOf(MiB)}\n${jsonOf(MiB + 1)}\n`, [true, false]);
    await bound('ndjson', `\uFEFF${jsonOf(MiB + 1)}\n${jsonOf(MiB)}\n`, [false, true]);
  });

  it('accepts a BOM, at the start of the input only', async () => {
    await bom('ndjson', '{"name":"a","categoryId":1}\n{"name":"b","categoryId":2}\n');
    const rs = await read(bytes('{"name":"a","categoryId":1}\n\uFEFF{"name":"b","categoryId":2}\n'), 'ndjson');
    expect(rs[1]?.check.ok).toBe(false);
  });

  it('reports a line that is not UTF-8 at its line, never as U+FFFD; the other lines are read', async () => {
    for (const size of [1, 65_536]) {
      const data = bytes('{"name":"a","categoryId":1}\n{"name":"b', [0xff], '","categoryId":2}\n{"name":"\u00e9","categoryId":3}\n{"name":"', [0xc3], '"}');
      expect(summary(await read(data, 'ndjson', size))).toEqual([
        [1, pet('a', 1)],
        [2, NOT_UTF8],
        [3, pet('\u00e9', 3)],
        [4, NOT_UTF8],
      ]);
    }
  });

  it("stops on abort with the signal's reason, inside a line past the bound", async () => {
    await abortInside('ndjson', '{"name":"a","categoryId":1}\n{"name":"', [1]);
  });
});

describe('lines (the --resume file reader)', () => {
  it(
    'joins a 20 MB line that arrives in 64 KiB chunks once, not on every chunk',
    async () => {
      const out: string[] = [];
      const splitter = new LineSplitter(Number.POSITIVE_INFINITY);
      for await (const chunk of stream(Buffer.from(`a\r\n${'z'.repeat(BIG)}\r\nb`))) out.push(...splitter.push(chunk).map(text));
      out.push(...splitter.end().map(text));
      expect(out.map((l) => l.length)).toEqual([1, BIG, 1]);
    },
    TIMEOUT,
  );
});

describe('format sniffing', () => {
  it('sees past a BOM', () => {
    expect(sniffFormat('\uFEFF[')).toBe('json');
    expect(sniffFormat('\uFEFF{"name"')).toBe('ndjson');
    expect(sniffFormat('\uFEFFname,categoryId')).toBe('csv');
  });
});

describe('JSON array', () => {
  it(
    'a 20 MB element is a problem at its line, and the elements after it are read',
    async () => {
      const data = bytes('[\n  {"name":"a","categoryId":1},\n  {"name":"', 'x'.repeat(BIG), '","categoryId":2},\n  {"name":"c","categoryId":3}\n]\n');
      expect(summary(await read(data, 'json'))).toEqual([
        [2, pet('a', 1)],
        [3, TOO_LONG],
        [4, pet('c', 3)],
      ]);
    },
    TIMEOUT,
  );

  it('bounds an element at 1 MiB exactly', async () => {
    await bound('json', `[${jsonOf(MiB)},${jsonOf(MiB + 1)}]`, [true, false]);
  });

  it('accepts a BOM', async () => {
    await bom('json', '[{"name":"a","categoryId":1},\n{"name":"b","categoryId":2}]');
  });

  it('reports an element that is not UTF-8 at its line, naming the line of the bad byte when it spans lines', async () => {
    const data = bytes(
      '[\n{"name":"a","categoryId":1},\n{"name":"',
      [0xed, 0xa0, 0x80],
      '","categoryId":2},\n{"categoryId":3,\n"name":"',
      [0xfe],
      '"},\n{"name":"d","categoryId":4}]',
    );
    expect(summary(await read(data, 'json'))).toEqual([
      [2, pet('a', 1)],
      [3, NOT_UTF8],
      [4, { ok: false, problems: ['not valid UTF-8 (on line 5)'] }],
      [6, pet('d', 4)],
    ]);
  });

  it('is streamed: the first elements come before the input has ended', async () => {
    const input = new PassThrough();
    input.write('[\n{"name":"a","categoryId":9007199254740993},\n{"name":"b",');
    const records = readRecords(input, 'json');
    expect((await records.next()).value).toEqual({ line: 2, check: pet('a', 9007199254740993n) });
    input.end('"categoryId":2}]');
    const rest = [];
    for await (const r of records) rest.push(r);
    expect(summary(rest)).toEqual([[3, pet('b', 2)]]);
  });

  it(
    'reads 200,000 elements from a stream of chunks, int64 exact',
    async () => {
      const n = 200_000;
      const input = Readable.from(
        (function* () {
          yield '[';
          for (let i = 0; i < n; i += 1000) {
            const els = [];
            for (let j = i; j < i + 1000; j++) els.push(`{"name":"p${j}","categoryId":${9007199254740993n + BigInt(j)}}`);
            yield `${i === 0 ? '' : ','}\n${els.join(',\n')}`;
          }
          yield '\n]\n';
        })(),
      );
      let count = 0;
      let last: InputRecord | undefined;
      for await (const r of readRecords(input, 'json')) {
        count++;
        last = r;
      }
      expect(count).toBe(n);
      expect(last).toEqual({ line: n + 1, check: pet(`p${n - 1}`, 9007199254740993n + BigInt(n - 1)) });
    },
    TIMEOUT,
  );

  it("stops on abort with the signal's reason, inside an element past the bound", async () => {
    await abortInside('json', '[{"name":"a","categoryId":1},{"name":"', [1]);
  });
});

describe('CSV', () => {
  it(
    'a 20 MB row is a problem at its line, and the rows after it are read',
    async () => {
      const data = bytes('name,categoryId\nRex,1\n', 'x'.repeat(BIG), ',2\nTom,3\n');
      expect(summary(await read(data, 'csv'))).toEqual([
        [2, pet('Rex', 1)],
        [3, TOO_LONG],
        [4, pet('Tom', 3)],
      ]);
    },
    TIMEOUT,
  );

  it(
    'a quoted field over many lines that closes past 1 MiB: the record at its first line, the rows after it numbered right',
    async () => {
      const k = 200_000; // 1.2 MB of lines
      const data = bytes('name,categoryId\nRex,1\n"', 'line\r\n'.repeat(k), '",2\nTom,3\n');
      expect(summary(await read(data, 'csv'))).toEqual([
        [2, pet('Rex', 1)],
        [3, TOO_LONG],
        [3 + k + 1, pet('Tom', 3)],
      ]);
    },
    TIMEOUT,
  );

  it(
    'a stray quote before 20 MB of rows is one "unterminated quoted field" at its line, after every row before it',
    async () => {
      const data = bytes('name,categoryId\nRex,1\n\n"stray,2\n', 'Tom,3\n'.repeat(BIG / 6));
      expect(summary(await read(data, 'csv'))).toEqual([
        [2, pet('Rex', 1)],
        [4, { ok: false, problems: ['unterminated quoted field'] }],
      ]);
    },
    TIMEOUT,
  );

  it('bounds a record at 1 MiB exactly, its line break not counted; a header past it ends the reading', async () => {
    const row = (n: number) => `${'y'.repeat(n - 2)},1`;
    expect(row(MiB)).toHaveLength(MiB);
    await bound('csv', `name,categoryId\n${row(MiB)}\r\n${row(MiB + 1)}\r\n${row(MiB)}\n${row(MiB + 1)}`, [true, false, true, false]);
    await expect(read(bytes('name,categoryId,', 'x'.repeat(2 * MiB), '\nRex,1\n'), 'csv')).rejects.toThrow(/^line 1: record longer than 1 MiB$/);
  });

  it('accepts a BOM', async () => {
    await bom('csv', 'name,categoryId\na,1\nb,2\n');
  });

  it('reports a row that is not UTF-8 at its line (inside a quoted field over lines too); the rows after it are read', async () => {
    for (const size of [1, 65_536]) {
      const data = bytes('name,categoryId\nRex,1\nT', [0xc0, 0xaf], 'm,2\n"two\nlin', [0x80], 'es",3\nZo\u00eb,4\n');
      expect(summary(await read(data, 'csv', size))).toEqual([
        [2, pet('Rex', 1)],
        [3, NOT_UTF8],
        [4, { ok: false, problems: ['not valid UTF-8 (on line 5)'] }],
        [6, pet('Zo\u00eb', 4)],
      ]);
    }
  });

  it('not UTF-8 in the header ends the reading; in a last row with a quote left open, it is one record with both problems', async () => {
    await expect(read(bytes('name,category', [0xff], 'Id\nRex,1\n'), 'csv')).rejects.toThrow(/^line 1: not valid UTF-8$/);
    const rs = await read(bytes('name,categoryId\nRex,1\n"T', [0xff], 'm,2\n'), 'csv');
    expect(summary(rs)).toEqual([
      [2, pet('Rex', 1)],
      [3, { ok: false, problems: ['not valid UTF-8', 'unterminated quoted field'] }],
    ]);
  });

  it("stops on abort with the signal's reason, inside a quoted field past the bound", async () => {
    await abortInside('csv', 'name,categoryId\nRex,1\n"', [2]);
  });
});
