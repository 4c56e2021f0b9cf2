import { PassThrough, Readable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkNewPet } from '../../../src/bulk/new-pet-record.js';
import { ArrayScanner } from '../../../src/bulk/json-array.js';
import { formatFromName, readRecords, sniffFormat, type InputFormat } from '../../../src/bulk/read-records.js';
import { stringifyJson } from '../../../src/json/int64.js';

async function collect(text: string, format: InputFormat) {
  const out = [];
  for await (const r of readRecords(Readable.from([text]), format)) out.push(r);
  return out;
}

describe('formats', () => {
  it('comes from --format, then the extension', () => {
    expect(formatFromName('x.csv', 'ndjson')).toBe('ndjson');
    expect(formatFromName('pets.JSON', undefined)).toBe('json');
    expect(formatFromName('pets.jsonl', undefined)).toBe('ndjson');
    expect(formatFromName('pets.ndjson', undefined)).toBe('ndjson');
    expect(formatFromName('-', undefined)).toBeUndefined();
    expect(() => formatFromName('x', 'xml')).toThrow(/invalid --format "xml": must be one of json, ndjson, csv/);
  });
  it('is sniffed from the first character otherwise', () => {
    expect(sniffFormat('  [\n')).toBe('json');
    expect(sniffFormat('{"name":1}')).toBe('ndjson');
    expect(sniffFormat('name,categoryId')).toBe('csv');
  });
});

describe('NDJSON', () => {
  it('reads records with their line numbers, skipping blank lines, int64 exact', async () => {
    const rs = await collect('{"name":"a","categoryId":9007199254740993}\n\n{"name":"b","categoryId":2,"status":"sold"}\r\n', 'ndjson');
    expect(rs.map((r) => r.line)).toEqual([1, 3]);
    expect(rs[0]?.check).toEqual({ ok: true, pet: { name: 'a', categoryId: 9007199254740993n } });
    expect(rs[1]?.check).toEqual({ ok: true, pet: { name: 'b', categoryId: 2n, status: 'sold' } });
  });
  it('reports bad JSON and bad records by line', async () => {
    const rs = await collect('{"name":"a","categoryId":1}\n{oops\n{"name":"","categoryId":"1","status":"lost","x":1}\n', 'ndjson');
    expect(rs[1]).toMatchObject({ line: 2, check: { ok: false } });
    expect(rs[2]?.check.ok).toBe(false);
    const problems = rs[2]?.check.ok === false ? rs[2].check.problems.join('; ') : '';
    expect(problems).toContain('unknown field "x"');
    expect(problems).toContain('name must be a non-empty string');
    expect(problems).toContain('categoryId must be a whole number');
    expect(problems).toContain('status must be one of available, pending, sold');
  });
  it('rejects ids outside int64 and non-integers', async () => {
    const rs = await collect(
      '{"name":"a","categoryId":9223372036854775808}\n{"name":"a","categoryId":1.5}\n{"name":"a","categoryId":-9223372036854775808}\n',
      'ndjson',
    );
    expect(rs.map((r) => r.check.ok)).toEqual([false, false, true]);
  });
});

describe('CSV', () => {
  it('reads a header and rows, in any column order, with quoting', async () => {
    const rs = await collect('status,name,categoryId\navailable,"Rex, the ""dog""",9007199254740993\n,Tom,2\n', 'csv');
    expect(rs.map((r) => r.line)).toEqual([2, 3]);
    expect(rs[0]?.check).toEqual({ ok: true, pet: { name: 'Rex, the "dog"', categoryId: 9007199254740993n, status: 'available' } });
    expect(rs[1]?.check).toEqual({ ok: true, pet: { name: 'Tom', categoryId: 2n } });
  });
  it('keeps the starting line of a record with a quoted newline', async () => {
    const rs = await collect('name,categoryId\n"two\nlines",1\nx,2\n', 'csv');
    expect(rs.map((r) => r.line)).toEqual([2, 4]);
    expect(rs[0]?.check).toMatchObject({ ok: true, pet: { name: 'two\nlines' } });
  });
  it('rejects a bad header at once and a short row by line', async () => {
    await expect(collect('name,colour\nx,1\n', 'csv')).rejects.toThrow(/line 1: CSV header.*missing categoryId; unknown colour/);
    const rs = await collect('name,categoryId\nx\n', 'csv');
    expect(rs[0]).toMatchObject({ line: 2, check: { ok: false, problems: ['expected 2 columns (name,categoryId), got 1'] } });
  });
  it('splits what it joins (property)', async () => {
    const quote = (f: string) => (/[",\n]/.test(f) || f.startsWith('"') ? `"${f.replaceAll('"', '""')}"` : f);
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.string(), fc.string()), { minLength: 1, maxLength: 6 }), async (rows) => {
        const text = `name,status,categoryId\n${rows.map(([name, status]) => `${quote(name)},${quote(status)},7\n`).join('')}`;
        const rs = await collect(text, 'csv');
        expect(rs.map((r) => r.line)).toEqual(rows.map((_, i) => i + 2));
        expect(rs.map((r) => r.check)).toEqual(rows.map(([name, status]) => checkNewPet({ name, status, categoryId: '7' }, true)));
      }),
    );
  });
  it('skips blank lines, drops a BOM, reads CRLF, and numbers lines like an editor', async () => {
    const rs = await collect('\uFEFFname,categoryId\r\n\r\n   \r\n"two\r\nlines",1\r\n""\r\nx,2\r\n', 'csv');
    expect(rs.map((r) => r.line)).toEqual([4, 6, 7]);
    expect(rs[0]?.check).toEqual({ ok: true, pet: { name: 'two\nlines', categoryId: 1n } });
    expect(rs[1]?.check).toEqual({ ok: false, problems: ['expected 2 columns (name,categoryId), got 1'] });
    expect(rs[2]?.check).toEqual({ ok: true, pet: { name: 'x', categoryId: 2n } });
  });
  it('reports an unterminated quoted field at the line it opens, after every record before it', async () => {
    const before = Array.from({ length: 100 }, (_, i) => `Rex${i},${i}\n`).join('');
    // 50,000 lines after a stray quote: the reader must stay linear (it re-split a growing record on every line).
    const rs = await collect(`name,categoryId\n${before}"stray,1\n${'Tom,2\n'.repeat(50_000)}`, 'csv');
    expect(rs).toHaveLength(101);
    expect(rs.slice(0, 100).every((r, i) => r.line === i + 2 && r.check.ok)).toBe(true);
    expect(rs[100]).toEqual({ line: 102, check: { ok: false, problems: ['unterminated quoted field'] } });
  }, 10_000);
  it("stops on abort with the signal's reason, even inside an open quoted field", async () => {
    const input = new PassThrough();
    input.write('name,categoryId\nRex,1\n"open,1\nmore\n');
    const ac = new AbortController();
    const reason = new Error('stop');
    const seen: number[] = [];
    const reading = (async () => {
      for await (const r of readRecords(input, 'csv', ac.signal)) seen.push(r.line);
    })();
    setTimeout(() => ac.abort(reason), 20);
    await expect(reading).rejects.toBe(reason);
    expect(seen).toEqual([2]);
    expect(input.destroyed).toBe(true);
  });
});

describe('JSON array', () => {
  it('gives each element its starting line', async () => {
    const text = '[\n  {"name":"a","categoryId":1},\n  {"name":"b,]","categoryId":9007199254740993}\n]\n';
    const rs = await collect(text, 'json');
    expect(rs.map((r) => r.line)).toEqual([2, 3]);
    expect(rs[1]?.check).toEqual({ ok: true, pet: { name: 'b,]', categoryId: 9007199254740993n } });
  });
  it('reads an empty array and rejects a non-array', async () => {
    expect(await collect(' [ ] ', 'json')).toEqual([]);
    await expect(collect('{"name":"a"}', 'json')).rejects.toThrow(/must be an array/);
    await expect(collect('[{"name":"a"}', 'json')).rejects.toThrow(/not closed/);
  });
  it('finds the same elements JSON.parse does (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue(), { maxLength: 8 }), fc.boolean(), (values, pretty) => {
        const text = pretty ? JSON.stringify(values, null, 2) : JSON.stringify(values);
        const scanner = new ArrayScanner();
        const elements = [...scanner.push(Buffer.from(text)), ...scanner.end()];
        const parsed = elements.map((e) => JSON.parse('source' in e ? e.source : 'x'));
        expect(stringifyJson(parsed)).toBe(stringifyJson(JSON.parse(text)));
      }),
    );
  });
});

describe('the record iterator', () => {
  const lines = (n: number) => Array.from({ length: n }, (_, i) => `{"name":"p${i}","categoryId":${i}}\n`).join('');

  it('stops reading, the input destroyed, when the loop leaves early', async () => {
    const input = Readable.from([lines(3), lines(3)]);
    for await (const r of readRecords(input, 'ndjson')) if (r.line === 2) break;
    expect(input.destroyed).toBe(true);
  });

  it('hands out the elements before a JSON failure first, then rejects, then is done', async () => {
    const records = readRecords(Readable.from(['[{"name":"a","categoryId":1},\n{"name":"b","categoryId":2}] x']), 'json');
    expect((await records.next()).value).toMatchObject({ line: 1 });
    expect((await records.next()).value).toMatchObject({ line: 2 });
    await expect(records.next()).rejects.toThrow('line 2: unexpected text after the JSON array');
    expect(await records.next()).toEqual({ value: undefined, done: true });
  });

  it('answers next() calls made together in order', async () => {
    const records = readRecords(Readable.from([lines(2), lines(1)]), 'ndjson');
    const steps = await Promise.all([records.next(), records.next(), records.next(), records.next()]);
    expect(steps.map((s) => (s.done ? 'done' : s.value.line))).toEqual([1, 2, 3, 'done']);
  });

  it('reads usual and unusual lines alike', async () => {
    const text =
      '{"name":"a","categoryId":1}\r\n{ "categoryId" : 9007199254740993 , "name" : "b" }\n{"name":"c\\u0064","categoryId":3,"status":"sold"}\n\n{"name":"","categoryId":4}';
    const got = await collect(text, 'ndjson');
    expect(got).toEqual([
      { line: 1, check: { ok: true, pet: { name: 'a', categoryId: 1n } } },
      { line: 2, check: { ok: true, pet: { name: 'b', categoryId: 9007199254740993n } } },
      { line: 3, check: { ok: true, pet: { name: 'cd', categoryId: 3n, status: 'sold' } } },
      { line: 5, check: { ok: false, problems: ['name must be a non-empty string, got ""'] } },
    ]);
  });
});
