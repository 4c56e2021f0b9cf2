// The CSV reader finds where records end itself and hands a chunk's well-formed records to csv-parse together: whatever the text and however it is chunked, it must read what csv-parse
// reading the whole input at once gives (records, lines, problems), as it did before.
import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkNewPet, NEW_PET_FIELDS, REQUIRED_FIELDS } from '../../../src/bulk/new-pet-record.js';
import { csvRecords } from '../../../src/bulk/csv-records.js';
import type { InputRecord } from '../../../src/bulk/read-records.js';
import { cutStream } from '../../helpers/cut-stream.js';

const stream = cutStream;

type Outcome = { records: InputRecord[]; error?: string };

/** csv-parse over the whole text, read as the reader reads its rows (UTF-8 text within the bound only). */
function oracle(text: string): Outcome {
  let unterminated = false;
  const rows = parse(text, {
    bom: true,
    record_delimiter: ['\r\n', '\n'],
    relax_quotes: true,
    relax_column_count: true,
    skip_empty_lines: false,
    raw: true,
    skip_records_with_error: true,
    on_skip: () => {
      unterminated = true;
    },
  }) as unknown as { record: string[]; raw: string }[];
  const records: InputRecord[] = [];
  let header: string[] | undefined;
  let next = 1;
  for (const { record, raw } of rows) {
    const start = next;
    next += (raw.endsWith('\r') ? 1 : 0) + raw.split('\n').length - 1;
    if (raw.trim() === '') continue;
    const fields = record.map((f) => f.replaceAll('\r\n', '\n'));
    if (!header) {
      header = fields.map((f) => f.trim());
      if (REQUIRED_FIELDS.some((c) => !header?.includes(c)) || header.some((c) => !NEW_PET_FIELDS.includes(c))) return { records, error: `line ${start}` };
      continue;
    }
    if (fields.length !== header.length) {
      records.push({ line: start, check: { ok: false, problems: [`expected ${header.length} columns (${header.join(',')}), got ${fields.length}`] } });
      continue;
    }
    const row: Record<string, string> = {};
    header.forEach((name, i) => {
      row[name] = fields[i] ?? '';
    });
    records.push({ line: start, check: checkNewPet(row, true) });
  }
  if (unterminated) records.push({ line: next, check: { ok: false, problems: ['unterminated quoted field'] } });
  return { records };
}

async function read(text: string, cuts: number[]): Promise<Outcome> {
  const records: InputRecord[] = [];
  try {
    for await (const batch of csvRecords(stream(Buffer.from(text), cuts))) records.push(...batch);
  } catch (error) {
    return { records, error: (error as Error).message.split(':')[0] };
  }
  return { records };
}

const headers = fc.constantFrom(
  'name,categoryId,status',
  'categoryId,name',
  '\ufeffname,categoryId',
  ' name , categoryId ',
  '"name",categoryId',
  'name,categoryId,colour',
  '',
);
const token = fc.oneof(
  { arbitrary: fc.constantFrom('rex', 'sold', 'pending', '12', '-0', '007', '9007199254740993', ' ', 'é', '\u2028', '\ufeff'), weight: 6 },
  { arbitrary: fc.constantFrom(',', ',,'), weight: 4 },
  { arbitrary: fc.constantFrom('\n', '\r\n', '\r'), weight: 3 },
  { arbitrary: fc.constantFrom('"', '""', '"\n', '"\r\n', '"a,b"'), weight: 1 },
);
const body = fc.array(token, { maxLength: 200 }).map((a) => a.join(''));
/** Mostly quote-free rows, the usual file, with a quoted one here and there. */
const rows = fc
  .array(
    fc.oneof(
      { arbitrary: fc.constantFrom('rex,1,sold', 'a,2,', ' ,3,pending', 'b,x,sold', '', 'c,4'), weight: 8 },
      { arbitrary: fc.constantFrom('"q,1",5,sold', '"multi\nline",6,'), weight: 1 },
    ),
    {
      maxLength: 60,
    },
  )
  .map((r) => r.join('\n'));

describe('the CSV reader reads what csv-parse reads (property)', () => {
  it('any text, any chunks', async () => {
    await fc.assert(
      fc.asyncProperty(headers, fc.oneof(body, rows), fc.constantFrom('\n', '\r\n'), fc.array(fc.nat(), { maxLength: 8 }), async (h, b, eol, cuts) => {
        const text = `${h}${eol}${b}`;
        expect(await read(text, cuts)).toEqual(oracle(text));
      }),
      { numRuns: 1500 },
    );
  });

  it('a large quote-free file, chunked as a file is, int64 exact', async () => {
    const lines = Array.from({ length: 20_000 }, (_, i) => `pet-${i},${9007199254740993n + BigInt(i)},${i % 2 ? 'sold' : ''}`);
    const text = `name,categoryId,status\r\n${lines.join('\r\n')}\r\n`;
    const got = await read(
      text,
      Array.from({ length: 20 }, (_, i) => (i + 1) * 65_536),
    );
    expect(got).toEqual(oracle(text));
    expect(got.records.at(-1)).toEqual({
      line: 20_001,
      check: { ok: true, pet: { name: 'pet-19999', categoryId: 9007199254740993n + 19_999n, status: 'sold' } },
    });
  });
});
