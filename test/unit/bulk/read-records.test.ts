import { Readable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { arrayElements, formatFromName, readRecords, sniffFormat, splitCsv, type InputFormat } from '../../../src/bulk/read-records.js';
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
    const rs = await collect('{"name":"a","categoryId":9223372036854775808}\n{"name":"a","categoryId":1.5}\n{"name":"a","categoryId":-9223372036854775808}\n', 'ndjson');
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
  it('splits what it joins (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.string(), { minLength: 1, maxLength: 6 }), (fields) => {
        const text = fields.map((f) => (/[",\n]/.test(f) || f.startsWith('"') ? `"${f.replaceAll('"', '""')}"` : f)).join(',');
        expect(splitCsv(text)).toEqual({ fields, open: false });
      }),
    );
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
        const parsed = [...arrayElements(text)].map((e) => JSON.parse(e.source));
        expect(stringifyJson(parsed)).toBe(stringifyJson(JSON.parse(text)));
      }),
    );
  });
});
