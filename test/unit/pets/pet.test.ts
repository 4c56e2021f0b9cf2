import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { UsageError } from '../../../src/errors/errors.js';
import { parseJson } from '../../../src/json/int64.js';
import { parseLimit } from '../../../src/flag-values.js';
import { parseId, parseName, toPet, toPets } from '../../../src/pets/pet.js';

describe('flag validators', () => {
  it('limit: whole numbers 1..100, naming the flag and the range', () => {
    expect(parseLimit('1')).toBe(1);
    expect(parseLimit('100')).toBe(100);
    for (const bad of ['0', '101', '-1', '2.5', '1e2', 'ten', '']) {
      expect(() => parseLimit(bad)).toThrow(UsageError);
      expect(() => parseLimit(bad)).toThrow(`invalid --limit "${bad}": must be a whole number from 1 to 100`);
    }
  });

  it('limit: every integer in range and none outside', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1000, max: 1000 }), (n) => {
        if (n >= 1 && n <= 100) expect(parseLimit(String(n))).toBe(n);
        else expect(() => parseLimit(String(n))).toThrow(UsageError);
      }),
    );
  });

  it('name: non-empty', () => {
    expect(parseName('Rex')).toBe('Rex');
    expect(() => parseName('   ')).toThrow('invalid --name: must be a non-empty name');
    expect(() => parseName('')).toThrow(UsageError);
  });

  it('ids: signed int64, naming the flag, the range and leading zeros', () => {
    expect(parseId('9223372036854775807', '--category-id')).toBe(2n ** 63n - 1n);
    expect(parseId('-9223372036854775808')).toBe(-(2n ** 63n));
    expect(() => parseId('9223372036854775808', '--category-id')).toThrow(
      'invalid --category-id "9223372036854775808": must be a whole number from -9223372036854775808 to 9223372036854775807',
    );
    expect(() => parseId('007')).toThrow('invalid pet id "007": must be a whole number without leading zeros from');
    expect(() => parseId('1.0')).toThrow(UsageError);
  });
});

describe('response shapes', () => {
  it('reads a pet with exact int64 ids, keeping unknown fields', () => {
    const pet = toPet(parseJson('{"id":9007199254740993,"name":"Rex","categoryId":3,"status":"sold","extra":true}'));
    expect(pet).toEqual({ id: 9007199254740993n, name: 'Rex', categoryId: 3n, status: 'sold', extra: true });
  });

  it.each([
    ['no id', '{"name":"Rex","categoryId":1}'],
    ['string id', '{"id":"1","name":"Rex","categoryId":1}'],
    ['float id', '{"id":1.5,"name":"Rex","categoryId":1}'],
    ['id beyond int64', '{"id":9223372036854775808,"name":"Rex","categoryId":1}'],
    ['no name', '{"id":1,"categoryId":1}'],
    ['no categoryId', '{"id":1,"name":"Rex"}'],
    ['unknown status', '{"id":1,"name":"Rex","categoryId":1,"status":"lost"}'],
    ['array', '[]'],
    ['null', 'null'],
  ])('rejects a pet with %s', (_what, text) => {
    expect(toPet(parseJson(text))).toBeUndefined();
  });

  it('reads a list only when every item is a pet', () => {
    expect(toPets([])).toEqual([]);
    expect(toPets(parseJson('[{"id":1,"name":"a","categoryId":2}]'))).toHaveLength(1);
    expect(toPets(parseJson('[{"id":1,"name":"a","categoryId":2},{}]'))).toBeUndefined();
    expect(toPets({ pets: [] })).toBeUndefined();
  });
});
