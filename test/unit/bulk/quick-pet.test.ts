import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkNewPet, csvColumns, NEW_PET_FIELDS, quickCsvPet, quickPet } from '../../../src/bulk/new-pet-record.js';
import { parseJson, stringifyJson } from '../../../src/json/int64.js';

/** What the exact path (parseJson, then checkNewPet) makes of a record's text. */
function exact(text: string) {
  try {
    return checkNewPet(parseJson(text));
  } catch {
    return 'not JSON';
  }
}

const space = fc.constantFrom('', ' ', '\t', '\r', '\n', '  ', '\u00a0', '\ufeff');
const key = fc.constantFrom('"name"', '"categoryId"', '"status"', '"other"', '"na\\u006de"', '"Name"', '"name ', 'name', '"status"');
const value = fc.oneof(
  fc.string().map((s) => JSON.stringify(s)),
  fc.constantFrom('"available"', '"pending"', '"sold"', '"Sold"', '"sold "', '""', '"  "', '"\\u0073old"', '"a\tb"', '"\u2028"', '" x "'),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
  fc.constantFrom('-0', '0', '01', '-01', '1.0', '1e3', '1E3', '-', '9223372036854775807', '9223372036854775808', '-9223372036854775808', '9007199254740993'),
  fc.constantFrom('null', 'true', '[]', '{}', '[1]', '{"a":1}', '"unterminated'),
);
const member = fc.tuple(space, key, space, fc.constantFrom(':', ''), space, value, space).map((p) => p.join(''));
const record = fc
  .tuple(
    space,
    fc.constantFrom('{', '[', ''),
    fc.array(member, { maxLength: 5 }),
    fc.constantFrom(',', ' ,', ';'),
    fc.constantFrom('}', ']', '', '}}', '},'),
    space,
  )
  .map(([a, open, members, sep, close, b]) => `${a}${open}${members.join(sep)}${close}${b}`);
/** The usual shape, its parts in either order, with JSON whitespace, names without escapes. */
const usual = fc
  .tuple(
    fc.string({ minLength: 1, unit: 'binary' }).filter((s) => s.trim() !== '' && !JSON.stringify(s).includes('\\')),
    fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
    fc.option(fc.constantFrom('available', 'pending', 'sold'), { nil: undefined }),
    fc.boolean(),
    fc.constantFrom('', ' ', '\t', '\r\n', '  '),
  )
  .map(([name, id, status, reversed, s]) => {
    const members = [`"name"${s}:${s}${JSON.stringify(name)}`, `"categoryId":${id}`, ...(status ? [`"status":"${status}"`] : [])];
    return `${s}{${s}${(reversed ? members.reverse() : members).join(`${s},${s}`)}${s}}${s}`;
  });

describe('quickPet', () => {
  it('knows the fields a record may have (a new one must be read by quickPet too)', () => {
    expect(NEW_PET_FIELDS).toEqual(['name', 'categoryId', 'status']);
  });

  it('returns a pet only where the exact path accepts the same pet, and reads only its part of the text', () => {
    fc.assert(
      fc.property(fc.oneof(record, usual), fc.constantFrom('', '}', '0', '\n', ',"x":1}'), (text, after) => {
        const whole = `1${text}${after}`;
        const pet = quickPet(whole, 1, 1 + text.length)?.pet;
        if (pet === undefined) return;
        const check = exact(text);
        expect(check).toEqual({ ok: true, pet });
        if (check !== 'not JSON' && check.ok) expect(Object.keys(pet)).toEqual(Object.keys(check.pet));
      }),
      { numRuns: 3000 },
    );
  });

  it('reads the usual shape itself, int64 exact', () => {
    fc.assert(
      fc.property(usual, (text) => {
        const pet = quickPet(text, 0, text.length)?.pet;
        expect(pet).toBeDefined();
        expect(exact(text)).toEqual({ ok: true, pet });
      }),
      { numRuns: 1000 },
    );
  });

  it.each([
    ['{"name":"rex","categoryId":9007199254740993,"status":"sold"}', { name: 'rex', categoryId: 9007199254740993n, status: 'sold' }],
    ['{"categoryId":-9223372036854775808,"name":"a"}', { name: 'a', categoryId: -(2n ** 63n) }],
    ['{"name":"a","categoryId":-0}', { name: 'a', categoryId: 0n }],
  ])('%s', (text, pet) => {
    expect(quickPet(text, 0, text.length)?.pet).toEqual(pet);
  });

  // A dry run copies `json` into its line in place of the pet written anew: it must be exactly what
  // JSON.stringify writes of the pet, and be there whenever the record was written that way.
  it('gives the text as `json` exactly when it is the pet as JSON.stringify writes it', () => {
    fc.assert(
      fc.property(fc.oneof(record, usual), fc.constantFrom('', '}', '\n', ' '), (text, after) => {
        const whole = `1${text}${after}`;
        const check = quickPet(whole, 1, 1 + text.length);
        if (check === undefined) return;
        const written = stringifyJson(check.pet);
        if (check.json !== undefined) expect(check.json).toBe(written);
        if (text === written) expect(check.json).toBe(written);
      }),
      { numRuns: 3000 },
    );
  });

  it.each([
    ['{"name":"rex","categoryId":7,"status":"sold"}', true],
    ['{"name":"rex","categoryId":9007199254740993}', true],
    ['{"name":"a","categoryId":-0}', false],
    ['{"categoryId":7,"name":"rex"}', false],
    ['{"name":"rex", "categoryId":7}', false],
    ['{"name" :"rex","categoryId":7}', false],
    ['{"name":"rex","categoryId":7 }', false],
    [' {"name":"rex","categoryId":7}', true],
    ['{"name":"rex","status":"sold","categoryId":7}', false],
  ])('%s: json %s', (text, copied) => {
    const check = quickPet(text, 0, text.length);
    expect(check?.json).toBe(copied ? text.trim() : undefined);
  });

  it.each([
    '{"name":"a","categoryId":9223372036854775808}',
    '{"name":"a","categoryId":1.0}',
    '{"name":"a","categoryId":01}',
    '{"name":"a","name":"b","categoryId":1}',
    '{"name":"a","categoryId":1,"status":null}',
    '{"name":"a\\"b","categoryId":1}',
    '{"name":" ","categoryId":1}',
    '{"name":"a","categoryId":1,"x":1}',
    '{"name":"a","categoryId":1} x',
    '',
  ])('leaves %j to the exact path', (text) => {
    expect(quickPet(text, 0, text.length)).toBeUndefined();
  });
});

describe('quickCsvPet', () => {
  const cell = fc.oneof(
    fc.string(),
    fc.constantFrom('available', 'pending', 'sold', 'Sold', ' sold', '', ' ', 'rex'),
    fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n }).map(String),
    fc.constantFrom('-0', '0', '01', ' 7', '7 ', '1.0', '1e3', '-', '+1', '9007199254740993', '999999999999999', '-999999999999999'),
  );
  const header = fc.constantFrom(['name', 'categoryId', 'status'], ['status', 'categoryId', 'name'], ['categoryId', 'name'], ['name', 'name', 'categoryId']);

  it('returns a pet only where checkNewPet accepts the same pet from the row', () => {
    fc.assert(
      fc.property(header, fc.array(cell, { minLength: 3, maxLength: 3 }), (columns, cells) => {
        const fields = cells.slice(0, columns.length);
        const at = csvColumns(columns);
        const pet = at && quickCsvPet(fields, at);
        const row: Record<string, string> = {};
        columns.forEach((c, i) => {
          row[c] = fields[i] ?? '';
        });
        const check = checkNewPet(row, true);
        if (pet !== undefined) {
          expect(check).toEqual({ ok: true, pet });
          if (check.ok) expect(Object.keys(pet)).toEqual(Object.keys(check.pet));
        }
        // The usual row is read by the quick path.
        if (at && check.ok && /^-?(0|[1-9]\d{0,14})$/.test(fields[at.categoryId] ?? '')) expect(pet).toBeDefined();
      }),
      { numRuns: 3000 },
    );
  });

  it('leaves a header that names a column twice to the exact path', () => {
    expect(csvColumns(['name', 'name', 'categoryId'])).toBeUndefined();
  });
});
