// Property: the bulk input readers (src/bulk/read-records.ts) take any bytes:
// NDJSON never throws, CSV and JSON throw only a UsageError (a bad header, a
// broken array), and every record is either a valid NewPet or carries the
// problems that make it invalid. Valid records written in any of the three
// formats, in chunks split anywhere (even inside a UTF-8 sequence), read back exactly.
// A record not UTF-8 or past 1 MiB is that record's problem alone, wherever it is; and the CSV
// reader's splitter ends records where csv-parse does (seen with records cut a few bytes long).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { csvRecords } from '../../../src/bulk/csv-records.js';
import { readRecords, type InputFormat, type InputRecord } from '../../../src/bulk/read-records.js';
import { checkNewPet } from '../../../src/bulk/new-pet-record.js';
import { formatResult } from '../../../src/bulk/results.js';
import { UsageError } from '../../../src/errors/errors.js';
import { INT64_MAX, INT64_MIN, stringifyJson } from '../../../src/json/int64.js';
import type { NewPet } from '../../../src/pets/pet.js';
import { cutStream } from '../../helpers/cut-stream.js';

const RUNS = 300;
const FORMATS: InputFormat[] = ['ndjson', 'csv', 'json'];

const stream = cutStream;

async function read(bytes: Buffer, format: InputFormat, cuts: number[] = []): Promise<InputRecord[]> {
  const out: InputRecord[] = [];
  for await (const rec of readRecords(stream(bytes, cuts), format)) out.push(rec);
  return out;
}

function wellFormed(records: InputRecord[]): void {
  let last = 0;
  for (const r of records) {
    expect(Number.isInteger(r.line) && r.line >= 1).toBe(true);
    // Non-decreasing: a compact JSON array holds several records on one line.
    expect(r.line).toBeGreaterThanOrEqual(last);
    last = r.line;
    if (r.check.ok) {
      expect(r.check.pet.name.trim()).not.toBe('');
      expect(r.check.pet.categoryId >= INT64_MIN && r.check.pet.categoryId <= INT64_MAX).toBe(true);
    } else {
      expect(r.check.problems.length).toBeGreaterThan(0);
      for (const p of r.check.problems) expect(typeof p).toBe('string');
    }
  }
}

const cuts = fc.array(fc.nat(), { maxLength: 6 });
const status = fc.constantFrom('available', 'pending', 'sold');
const pet: fc.Arbitrary<NewPet> = fc.record(
  {
    name: fc.string({ unit: 'grapheme', minLength: 1 }).filter((s) => s.trim() !== '' && !s.includes('\r')),
    categoryId: fc.bigInt({ min: INT64_MIN, max: INT64_MAX }),
    status,
  },
  { requiredKeys: ['name', 'categoryId'] },
);

const csvField = (s: string) => (/[",\n\r]/.test(s) || s.startsWith('"') || s !== s.trim() ? `"${s.replaceAll('"', '""')}"` : s);
const writers: Record<InputFormat, (pets: NewPet[], pretty: boolean) => string> = {
  ndjson: (ps) => ps.map((p) => `${stringifyJson(p)}\n`).join(''),
  json: (ps, pretty) => stringifyJson(ps, pretty ? 2 : undefined),
  csv: (ps) => `name,categoryId,status\n${ps.map((p) => `${csvField(p.name)},${p.categoryId},${p.status ?? ''}\n`).join('')}`,
};

/** Any bytes, text, or near-valid input: broken quotes, stray commas, torn JSON, a BOM, CRLF. */
const hostile = fc.oneof(
  fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)),
  fc.string({ unit: 'binary', maxLength: 200 }).map((s) => Buffer.from(s)),
  fc.string({ maxLength: 200 }).map((s) => Buffer.from(s)),
  fc
    .tuple(fc.array(pet, { maxLength: 4 }), fc.constantFrom<InputFormat>('ndjson', 'csv', 'json'), fc.nat(), fc.string({ maxLength: 8 }), fc.boolean())
    .map(([ps, f, at, junk, crlf]) => {
      let text = writers[f](ps, false);
      const i = ps.length === 0 ? 0 : at % (text.length + 1);
      text = text.slice(0, i) + junk + text.slice(i);
      if (crlf) text = text.replaceAll('\n', '\r\n');
      return Buffer.from(text);
    }),
  fc
    .constantFrom(
      '\uFEFFname,categoryId\nx,1\n',
      'name,categoryId\n"open,1\n',
      '[{"name":"x","categoryId":1},',
      '[]]',
      '{"name":',
      'name\n',
      ',,,\n,,,\n',
      '[1e999]',
    )
    .map((s) => Buffer.from(s)),
);

describe('bulk record parsing (property)', () => {
  for (const format of FORMATS) {
    it(`${format}: any bytes give well-formed records or ${format === 'ndjson' ? 'nothing else' : 'a UsageError'}, never a crash (${RUNS} runs)`, async () => {
      await fc.assert(
        fc.asyncProperty(hostile, cuts, async (bytes, at) => {
          try {
            wellFormed(await read(bytes, format, at));
          } catch (error) {
            if (format === 'ndjson' || !(error instanceof UsageError)) throw error;
            expect(error.message).toMatch(/^line \d+: /);
          }
        }),
        { numRuns: RUNS },
      );
    });

    it(`${format}: valid records read back exactly, however the bytes are chunked (${RUNS} runs)`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(pet, { maxLength: 8 }), fc.boolean(), cuts, async (pets, pretty, at) => {
          const records = await read(Buffer.from(writers[format](pets, pretty)), format, at);
          expect(records.map((r) => r.check)).toEqual(pets.map((p) => ({ ok: true, pet: p })));
          wellFormed(records);
        }),
        // U+2028/U+2029 are ordinary characters in JSON strings and CSV fields, not line ends
        // (found by this property: node:readline splits lines on them).
        {
          numRuns: RUNS,
          examples: [
            [
              [
                { name: 'Rex\u2028Jr', categoryId: 1n },
                { name: 'Tom\u2029', categoryId: 2n, status: 'sold' },
              ],
              false,
              [],
            ],
          ],
        },
      );
    });
  }

  it('U+2028 and U+2029 inside a name are kept: one record each, not split into two invalid lines or turned into \\n', async () => {
    const pets: NewPet[] = [
      { name: 'line\u2028separator', categoryId: 1n },
      { name: 'paragraph\u2029separator', categoryId: 2n },
    ];
    for (const format of FORMATS) {
      const records = await read(Buffer.from(writers[format](pets, false)), format);
      expect(
        records.map((r) => r.check),
        format,
      ).toEqual(pets.map((p) => ({ ok: true, pet: p })));
    }
  });

  it(`a record object is valid exactly when it has a non-blank name, an int64 categoryId, a known or absent status and nothing else (${RUNS} runs)`, () => {
    const value = fc.oneof(fc.jsonValue(), fc.bigInt({ min: INT64_MIN * 2n, max: INT64_MAX * 2n }), fc.constant(undefined));
    const record = fc.record(
      {
        name: fc.oneof(fc.string(), value),
        categoryId: fc.oneof(fc.bigInt({ min: INT64_MIN * 2n, max: INT64_MAX * 2n }), fc.integer(), value),
        status: fc.oneof(status, value),
        extra: value,
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(record, (rec) => {
        const check = checkNewPet(rec);
        const cid = rec.categoryId;
        const idOk = (typeof cid === 'bigint' && cid >= INT64_MIN && cid <= INT64_MAX) || (typeof cid === 'number' && Number.isSafeInteger(cid));
        const valid =
          typeof rec.name === 'string' &&
          rec.name.trim() !== '' &&
          idOk &&
          (rec.status === undefined || ['available', 'pending', 'sold'].includes(rec.status as string)) &&
          !('extra' in rec);
        expect(check.ok, stringifyJson(rec) ?? String(rec)).toBe(valid);
        if (!check.ok) expect(check.problems.length).toBeGreaterThan(0);
      }),
      { numRuns: RUNS },
    );
  });
});

describe('one bad record among good ones (property)', () => {
  // Fewer runs: a record past 1 MiB is a megabyte to parse each time (csv-parse takes ~10 ms).
  const BAD_RUNS = 50;
  const MARK = 'QQbadQQ';
  const BAD = {
    utf8: { bytes: Buffer.from([0x52, 0xff, 0x78]), problem: 'not valid UTF-8' },
    long: { bytes: Buffer.alloc(1024 * 1024 + 1, 'x'), problem: 'record longer than 1 MiB' },
  };
  for (const format of FORMATS) {
    it(`${format}: a record not UTF-8 or past 1 MiB, anywhere, is that record's problem at its line alone; the others read back (${BAD_RUNS} runs)`, async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(pet, { maxLength: 5 }),
          fc.nat(),
          fc.constantFrom<keyof typeof BAD>('utf8', 'long'),
          fc.boolean(),
          cuts,
          async (pets, at, kind, pretty, cut) => {
            const i = at % (pets.length + 1);
            const marked = [...pets.slice(0, i), { name: MARK, categoryId: 1n }, ...pets.slice(i)];
            const text = writers[format](marked, pretty);
            // The line the bad record starts on: its line in NDJSON and CSV, its `{` in a JSON array.
            const mark = text.indexOf(MARK);
            const start = format === 'json' ? text.lastIndexOf('{', mark) : text.lastIndexOf('\n', mark) + 1;
            const line = text.slice(0, start).split('\n').length;
            // In a pretty JSON array the bad byte (in the name) is a line below the element's start.
            const markLine = text.slice(0, mark).split('\n').length;
            const problem = kind === 'utf8' && markLine !== line ? `${BAD[kind].problem} (on line ${markLine})` : BAD[kind].problem;
            const [before, after] = text.split(MARK) as [string, string];
            const bytes = Buffer.concat([Buffer.from(before), BAD[kind].bytes, Buffer.from(after)]);
            const records = await read(
              bytes,
              format,
              cut.map((c) => c * 9973),
            );
            wellFormed(records);
            expect(records.map((r) => r.check)).toEqual([
              ...pets.slice(0, i).map((p) => ({ ok: true, pet: p })),
              { ok: false, problems: [problem] },
              ...pets.slice(i).map((p) => ({ ok: true, pet: p })),
            ]);
            expect(records[i]?.line).toBe(line);
          },
        ),
        { numRuns: BAD_RUNS },
      );
    });
  }
});

describe('the CSV splitter finds the records csv-parse finds (property)', () => {
  // With records cut a few bytes long, any text of quotes, commas, CRs and LFs (relax_quotes, a stray
  // quote, `"` CR, `""`) reads as it does with no bound: the same records at the same lines, except
  // that records past the bound are "record longer than 1 MiB". A splitter that ended a record where
  // csv-parse does not would shift the lines or records after it.
  const token = fc.oneof(
    { arbitrary: fc.constantFrom('"', '""', ',', '\r', 'a', 'bc', ' ', '1'), weight: 6 },
    { arbitrary: fc.constantFrom('\n', '\r\n', '"\n', '"\r\n'), weight: 1 },
  );
  const text = fc.array(token, { maxLength: 120, size: 'max' }).map((a) => a.join(''));
  const readCsv = async (t: string, max: number | undefined, cut: number[]) => {
    const out: InputRecord[] = [];
    for await (const batch of csvRecords(stream(Buffer.from(`name,categoryId\n${t}`), cut), max)) out.push(...batch);
    return out;
  };
  it(`${RUNS} runs`, async () => {
    await fc.assert(
      fc.asyncProperty(text, fc.integer({ min: 16, max: 24 }), cuts, async (t, max, cut) => {
        const whole = await readCsv(t, undefined, []);
        const bounded = await readCsv(t, max, cut);
        wellFormed(bounded);
        expect(bounded.map((r) => r.line)).toEqual(whole.map((r) => r.line));
        bounded.forEach((r, i) => {
          if (r.check.ok || r.check.problems[0] !== 'record longer than 1 MiB') expect(r.check).toEqual(whole[i]?.check);
        });
      }),
      { numRuns: RUNS },
    );
  });
});

describe("a dry run's line and a sending line are the generic JSON line's bytes (property)", () => {
  // formatResult writes these two from their fields: any pet (any name, a categoryId over all of int64, a
  // status or none) and any line number must come out byte for byte as stringifyJson writes them.
  it(`${RUNS} runs`, () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000_000 }), pet, (line, p) => {
        expect(formatResult({ line, status: 'would_create', record: p })).toBe(`${stringifyJson({ line, status: 'would_create', record: p })}\n`);
        expect(formatResult({ line, status: 'sending' })).toBe(`${stringifyJson({ line, status: 'sending' })}\n`);
      }),
      { numRuns: RUNS },
    );
  });
});
