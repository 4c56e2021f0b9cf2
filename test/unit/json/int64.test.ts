import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { INT64_MAX, INT64_MIN, parseInt64, parseJson, stringifyJson, toInt64 } from '../../../src/json/int64.js';

describe('exact int64 JSON', () => {
  it('keeps integers above 2^53 exact through parse and stringify', () => {
    const text = '{"id":9007199254740993,"categoryId":-9223372036854775808,"small":42,"f":1.5}';
    const value = parseJson(text) as Record<string, unknown>;
    expect(value.id).toBe(9007199254740993n);
    expect(value.categoryId).toBe(-9223372036854775808n);
    expect(value.small).toBe(42);
    expect(value.f).toBe(1.5);
    expect(stringifyJson(value)).toBe(text);
  });

  it('round-trips every int64', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: INT64_MIN, max: INT64_MAX }), (n) => {
        const text = `[${n}]`;
        const [back] = parseJson(text) as [unknown];
        expect(toInt64(back)).toBe(n);
        expect(stringifyJson(parseJson(text))).toBe(text);
      }),
    );
  });

  it('writes every int64 bigint as its exact digits, safe or not (and at the edges of the safe range)', () => {
    const edges = [0n, 2n ** 53n - 1n, 2n ** 53n, -(2n ** 53n) + 1n, -(2n ** 53n), INT64_MIN, INT64_MAX];
    for (const n of edges) expect(stringifyJson({ id: n, list: [n] })).toBe(`{"id":${n},"list":[${n}]}`);
    fc.assert(
      fc.property(fc.bigInt({ min: INT64_MIN, max: INT64_MAX }), (n) => {
        expect(stringifyJson({ pet: { id: n } })).toBe(`{"pet":{"id":${n}}}`);
      }),
    );
  });

  it('parses as the int64 reviver on every input would: unsafe integers bigint, every other value as JSON.parse has it', () => {
    const reviver = (_key: string, value: unknown, context?: { source?: string }) =>
      typeof value === 'number' && !Number.isSafeInteger(value) && context?.source && /^-?(0|[1-9]\d*)$/.test(context.source) ? BigInt(context.source) : value;
    const int64 = fc.bigInt({ min: INT64_MIN, max: INT64_MAX }).map(String);
    const number = fc.oneof(
      int64,
      fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
      fc.constantFrom('1e16', '-0', '9007199254740992', '9007199254740991.5'),
    );
    const json = fc.letrec<{ value: string; array: string; object: string }>((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        number,
        fc.string().map((s) => JSON.stringify(s)),
        tie('array'),
        tie('object'),
      ),
      array: fc.array(tie('value'), { maxLength: 4 }).map((items) => `[${items.join(',')}]`),
      object: fc.dictionary(fc.string(), tie('value'), { maxKeys: 4 }).map(
        (o) =>
          `{${Object.entries(o)
            .map(([k, v]) => `${JSON.stringify(k)}:${v}`)
            .join(',')}}`,
      ),
    })).value;
    fc.assert(
      fc.property(json, (text) => {
        expect(parseJson(text)).toStrictEqual(JSON.parse(text, reviver as (key: string, value: unknown) => unknown));
      }),
    );
  });

  it('does not turn a float or exponent into a bigint', () => {
    expect(parseJson('9007199254740993.0')).toBeTypeOf('number');
    expect(parseJson('1e30')).toBeTypeOf('number');
  });

  it('stringifies bigints anywhere, with indentation', () => {
    expect(stringifyJson([{ a: 1n }], 2)).toBe('[\n  {\n    "a": 1\n  }\n]');
  });
});

describe('toInt64', () => {
  it('accepts safe numbers and in-range bigints only', () => {
    expect(toInt64(5)).toBe(5n);
    expect(toInt64(2n ** 60n)).toBe(2n ** 60n);
    expect(toInt64(2n ** 63n)).toBeUndefined();
    expect(toInt64(1.5)).toBeUndefined();
    expect(toInt64(2 ** 60)).toBeUndefined(); // an unsafe Number may already be rounded
    expect(toInt64('5')).toBeUndefined();
    expect(toInt64(null)).toBeUndefined();
  });
});

describe('parseInt64', () => {
  it.each([
    ['0', 0n],
    ['42', 42n],
    ['-1', -1n],
    ['-0', 0n],
    [' 7 ', 7n],
    ['9223372036854775807', INT64_MAX],
    ['-9223372036854775808', INT64_MIN],
  ])('parses %j', (text, n) => expect(parseInt64(text)).toBe(n));

  it.each(['', '007', '+1', '1.0', '1e3', '0x10', '9223372036854775808', '-9223372036854775809', 'abc', '١٢'])('rejects %j', (text) => {
    expect(parseInt64(text)).toBeUndefined();
  });

  it('agrees with BigInt for every canonical int64 string', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: INT64_MIN, max: INT64_MAX }), (n) => {
        expect(parseInt64(n.toString())).toBe(n);
      }),
    );
  });
});
