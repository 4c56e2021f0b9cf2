// Property: exact int64 JSON (src/json/int64.ts) for values embedded anywhere
// in JSON documents, pretty or compact, and user-typed int64 text.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { INT64_MAX, INT64_MIN, parseInt64, parseJson, stringifyJson, toInt64 } from '../../../src/json/int64.js';

const RUNS = 500;
const int64 = fc.bigInt({ min: INT64_MIN, max: INT64_MAX });
/** Mostly beyond 2^53, where a JS number would round. */
const bigInt64 = fc.oneof(int64, fc.bigInt({ min: 2n ** 53n, max: INT64_MAX }), fc.bigInt({ min: INT64_MIN, max: -(2n ** 53n) }));

/** JSON documents whose integer leaves are int64 bigints (and other JSON values around them). */
const { doc } = fc.letrec((tie) => ({
  leaf: fc.oneof(bigInt64, fc.string(), fc.boolean(), fc.constant(null), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer()),
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    tie('leaf'),
    fc.array(tie('node'), { maxLength: 5 }),
    fc.dictionary(fc.string(), tie('node'), { maxKeys: 5 }),
  ),
  doc: fc.oneof(fc.array(tie('node'), { maxLength: 6 }), fc.dictionary(fc.string(), tie('node'), { maxKeys: 6 })),
}));

/** Every int64 bigint of a document, in order. */
function bigints(value: unknown, out: bigint[] = []): bigint[] {
  if (typeof value === 'bigint') out.push(value);
  else if (Array.isArray(value)) for (const v of value) bigints(v, out);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) bigints(v, out);
  return out;
}

/** The integer a parsed leaf denotes (safe integers parse back as numbers, larger ones as bigint). */
function asBig(v: unknown): unknown {
  if (typeof v === 'number' && Number.isSafeInteger(v)) return BigInt(v);
  if (Array.isArray(v)) return v.map(asBig);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, asBig(x)]));
  return v;
}

describe('int64 JSON parse/print (property)', () => {
  it(`documents with int64 leaves survive print -> parse -> print, compact and pretty, digits exact (${RUNS} runs)`, () => {
    fc.assert(
      fc.property(doc, fc.constantFrom(undefined, 2, 4), (value, indent) => {
        const text = stringifyJson(value, indent);
        const back = parseJson(text);
        expect(stringifyJson(back, indent)).toBe(text);
        expect(stringifyJson(back)).toBe(stringifyJson(value));
        // Each int64 comes back as the same integer, never through a rounded float.
        const after = bigints(asBig(back));
        for (const n of bigints(value)) {
          expect(after).toContain(n);
          expect(text).toContain(n.toString());
        }
      }),
      { numRuns: RUNS },
    );
  });

  it(`an int64 read from a pet-shaped body is exact (toInt64 after parseJson) (${RUNS} runs)`, () => {
    fc.assert(
      fc.property(int64, int64, fc.boolean(), (id, categoryId, pretty) => {
        const text = pretty ? `{\n  "id": ${id},\n  "name": "x",\n  "categoryId": ${categoryId}\n}` : `{"id":${id},"name":"x","categoryId":${categoryId}}`;
        const pet = parseJson(text) as Record<string, unknown>;
        expect(toInt64(pet.id)).toBe(id);
        expect(toInt64(pet.categoryId)).toBe(categoryId);
        expect(stringifyJson(pet, pretty ? 2 : undefined)).toBe(text);
      }),
      { numRuns: RUNS },
    );
  });

  it(`integers just outside int64 are never accepted as ids (${RUNS} runs)`, () => {
    const outside = fc.oneof(fc.bigInt({ min: INT64_MAX + 1n, max: INT64_MAX * 4n }), fc.bigInt({ min: INT64_MIN * 4n, max: INT64_MIN - 1n }));
    fc.assert(
      fc.property(outside, (n) => {
        expect(toInt64((parseJson(`[${n}]`) as unknown[])[0])).toBeUndefined();
        expect(parseInt64(n.toString())).toBeUndefined();
      }),
      { numRuns: RUNS },
    );
  });

  it(`parseInt64 on any text never throws; accepts exactly the canonical int64 syntax (${RUNS} runs)`, () => {
    const text = fc.oneof(
      fc.string(),
      fc.string({ unit: 'binary' }),
      int64.map((n) => n.toString()),
      fc.tuple(fc.constantFrom('', ' ', '+', '-', '0', '00', '\t'), int64, fc.constantFrom('', ' ', '.0', 'n', 'e1')).map(([a, n, b]) => `${a}${n}${b}`),
    );
    fc.assert(
      fc.property(text, (t) => {
        const n = parseInt64(t);
        const canonical = /^-?(0|[1-9]\d*)$/.test(t.trim());
        if (n === undefined) {
          if (canonical) expect(BigInt(t.trim()) > INT64_MAX || BigInt(t.trim()) < INT64_MIN).toBe(true);
        } else {
          expect(canonical).toBe(true);
          expect(n).toBe(BigInt(t.trim()));
          expect(n >= INT64_MIN && n <= INT64_MAX).toBe(true);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it(`parseJson on any text either parses or throws a SyntaxError (${RUNS} runs)`, () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.json(),
          fc.json().map((j) => j.slice(0, Math.max(0, j.length - 1))),
        ),
        (t) => {
          try {
            parseJson(t);
          } catch (error) {
            expect(error).toBeInstanceOf(SyntaxError);
          }
        },
      ),
      { numRuns: RUNS },
    );
  });
});
