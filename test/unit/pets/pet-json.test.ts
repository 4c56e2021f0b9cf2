// Property: the store's own form of a pet (src/pets/pet-json.ts) is read and written exactly as the
// general path does. readPet gives what parseJson and toPet give, or nothing; petJson gives what
// stringifyJson gives, or nothing; and both take the form the store writes, big ids included.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatResult } from '../../../src/bulk/results.js';
import { INT64_MAX, INT64_MIN, parseJson, stringifyJson } from '../../../src/json/int64.js';
import { petJson, readPet } from '../../../src/pets/pet-json.js';
import { PET_STATUSES, toPet, type Pet } from '../../../src/pets/pet.js';

const RUNS = 500;

const int64 = fc.oneof(
  fc.bigInt({ min: INT64_MIN, max: INT64_MAX }),
  fc.bigInt({ min: -1000n, max: 1000n }),
  fc.constantFrom(2n ** 53n + 1n, -(2n ** 53n) - 1n, INT64_MAX, INT64_MIN),
);
const name = fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary' }), fc.constantFrom('"', '\\', '\n', '\u2028', '\ud800', 'é😀'));
const pet: fc.Arbitrary<Pet> = fc.record(
  { id: int64, name, categoryId: int64, status: fc.constantFrom(...PET_STATUSES) },
  { requiredKeys: ['id', 'name', 'categoryId'] },
);

/** What the general path reads from an answer's text. */
function general(text: string): Pet | undefined {
  try {
    return toPet(parseJson(text));
  } catch {
    return undefined;
  }
}

describe('a pet in the store’s own form (pet-json.ts)', () => {
  it('petJson writes what stringifyJson writes, and takes every pet whose name needs no escape', () => {
    fc.assert(
      fc.property(pet, (p) => {
        const hand = petJson(p);
        if (hand !== undefined) expect(hand).toBe(stringifyJson(p));
        if (/^[\x20-\x21\x23-\x5b\x5d-\x7e]*$/.test(p.name)) expect(hand).toBeDefined();
      }),
      { numRuns: RUNS },
    );
  });

  it('readPet reads what parseJson and toPet read from the store’s text of any pet, and petJson writes that text back', () => {
    fc.assert(
      fc.property(pet, (p) => {
        const text = stringifyJson(p);
        const read = readPet(text);
        if (!/[\\\u0000-\u001f]/.test(JSON.stringify(p.name).slice(1, -1))) {
          expect(read).toStrictEqual(general(text));
          expect(petJson(read as Pet) ?? text).toBe(text);
        } else expect(read).toBeUndefined();
      }),
      { numRuns: RUNS },
    );
  });

  it('readPet reads anything else as the general path does, or not at all', () => {
    const near = fc.oneof(
      fc.json(),
      pet.map((p) => stringifyJson(p)),
      fc
        .tuple(
          pet.map((p) => stringifyJson(p)),
          fc.nat(),
          fc.string({ maxLength: 3 }),
        )
        .map(([t, at, s]) => t.slice(0, at % (t.length + 1)) + s + t.slice(at % (t.length + 1))),
      fc.constantFrom(
        '{"id":01,"name":"a","categoryId":1}',
        '{"id":-0,"name":"a","categoryId":1}',
        '{"id":1.0,"name":"a","categoryId":1}',
        '{"id":1e3,"name":"a","categoryId":1}',
        '{"id":9223372036854775808,"name":"a","categoryId":1}',
        '{"id":-9223372036854775809,"name":"a","categoryId":1}',
        '{"id":99999999999999999999,"name":"a","categoryId":1}',
        '{"id":1,"name":"a","categoryId":1,"status":"lost"}',
        '{"id":1,"name":"a","categoryId":1,"status":"sold","tag":"x"}',
        '{"name":"a","id":1,"categoryId":1}',
        '{"id":1, "name":"a","categoryId":1}',
        '{"id":1,"name":"a","categoryId":1}\n',
      ),
    );
    fc.assert(
      fc.property(near, (text) => {
        const read = readPet(text);
        if (read === undefined) return;
        expect(read).toStrictEqual(general(text));
        // A seeding run's result line copies the text readPet read (seed.ts, answered): petJson would
        // write that very text, for any text decoded from UTF-8 (no lone surrogate).
        if (Buffer.from(text, 'utf8').toString('utf8') === text) expect(petJson(read)).toBe(text);
      }),
      { numRuns: RUNS * 2 },
    );
    expect(readPet('{"id":9223372036854775807,"name":"a","categoryId":-9223372036854775808}')).toStrictEqual({
      id: INT64_MAX,
      name: 'a',
      categoryId: INT64_MIN,
    });
    expect(readPet('{"id":9007199254740993,"name":"a","categoryId":1,"status":"sold"}')).toStrictEqual({
      id: 2n ** 53n + 1n,
      name: 'a',
      categoryId: 1n,
      status: 'sold',
    });
  });

  it('petJson leaves a pet with other fields or in another order to stringifyJson', () => {
    expect(petJson({ id: 1n, name: 'a', categoryId: 2n, tag: 'x' } as Pet)).toBeUndefined();
    expect(petJson({ name: 'a', id: 1n, categoryId: 2n })).toBeUndefined();
    expect(petJson({ id: 1n, name: 'a', categoryId: 2n, status: undefined })).toBeUndefined();
    expect(formatResult({ line: 3, status: 'created', pet: { id: 1n, name: 'a', categoryId: 2n, tag: 'x' } as Pet })).toBe(
      '{"line":3,"status":"created","pet":{"id":1,"name":"a","categoryId":2,"tag":"x"}}\n',
    );
  });

  it('a created or skipped result line is stringifyJson’s line, made either way', () => {
    fc.assert(
      fc.property(pet, fc.integer({ min: 1, max: 2_000_000_000 }), fc.constantFrom('created' as const, 'skipped' as const), (p, line, status) => {
        expect(formatResult({ line, status, pet: p })).toBe(`${stringifyJson({ line, status, pet: p })}\n`);
      }),
      { numRuns: RUNS },
    );
  });
});
