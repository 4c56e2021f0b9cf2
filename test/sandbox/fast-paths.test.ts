// The sandbox's fast paths give exactly what the general ones give: readNewPetText (a POST body read in one
// pass) against parseBody + validateNewPet + petText, bodyText (invalid UTF-8 found by the decoder's U+FFFD)
// against isUtf8 + TextDecoder, and QuotaKeeper.admit against check.
import { isUtf8 } from 'node:buffer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { QuotaKeeper } from '../../src/sandbox/rate-limit.js';
import { petText } from '../../src/sandbox/types.js';
import { bodyText, parseBody, readNewPetText, validateNewPet } from '../../src/sandbox/validate.js';

function general(text: string): unknown {
  try {
    return { pet: petText(validateNewPet(parseBody(text))) };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

const bodies = [
  '{"name":"bench-pet","categoryId":1,"status":"available"}',
  '{"name":"Rex","categoryId":7}',
  ' \t\r\n{ "categoryId" : 12 , "name" : "Rex" , "status":"sold" } \n',
  '{"status":"pending","name":"a","categoryId":-5}',
  '{"name":"x","categoryId":0}',
  '{"name":"x","categoryId":-0}',
  '{"name":"x","categoryId":9007199254740993}',
  '{"name":"x","categoryId":9223372036854775807}',
  '{"name":"x","categoryId":-9223372036854775808}',
  '{"name":"x","categoryId":9223372036854775808}',
  '{"name":"x","categoryId":-9223372036854775809}',
  '{"name":"x","categoryId":99999999999999999999}',
  '{"name":"x","categoryId":1000000000000000}',
  '{"name":"x","categoryId":1.0}',
  '{"name":"x","categoryId":1e3}',
  '{"name":"x","categoryId":01}',
  '{"name":"x","categoryId":-}',
  '{"name":"x","categoryId":"1"}',
  '{"name":"x","categoryId":null}',
  '{"name":"x","categoryId":1,}',
  '{"name":"x","categoryId":1}x',
  '{"name":"x","categoryId":1}{}',
  '{"name":"x","categoryId":1 2}',
  '{"name":"x" "categoryId":1}',
  '{"name":"x","name":"y","categoryId":1}',
  '{"name":"x","categoryId":1,"categoryId":2}',
  '{"name":"x","categoryId":1,"status":"sold","status":"available"}',
  '{"name":"x","categoryId":1,"status":"lost"}',
  '{"name":"x","categoryId":1,"status":null}',
  '{"name":"x","categoryId":1,"id":3}',
  '{"name":"x","categoryId":1,"colour":"red"}',
  '{"name":"x","categoryId":1,"__proto__":{}}',
  '{"name":"","categoryId":1}',
  '{"name":"   ","categoryId":1}',
  '{"name":"\\u00e9t\\u00e9","categoryId":1}',
  '{"name":"a\\"b","categoryId":1}',
  '{"na\\u006de":"x","categoryId":1}',
  '{"name":"tab\there","categoryId":1}',
  '{"name":"été 🐶","categoryId":1}',
  `{"name":"${'a'.repeat(200)}","categoryId":1}`,
  `{"name":"${'a'.repeat(201)}","categoryId":1}`,
  `{"name":"${'🐶'.repeat(150)}","categoryId":1}`,
  `{"name":"${'🐶'.repeat(201)}","categoryId":1}`,
  '{"name":7,"categoryId":1}',
  '{"categoryId":1}',
  '{"name":"x"}',
  '{}',
  '[]',
  '"x"',
  '',
  '   ',
  '{',
  '{"name":"x","categoryId":1',
  '{"name":"x,"categoryId":1}',
];

describe('readNewPetText', () => {
  it('reads what the general path accepts, as the same text, and leaves everything else to it', () => {
    let fastCount = 0;
    for (const text of bodies) {
      const fast = readNewPetText(text);
      if (fast === undefined) continue;
      fastCount++;
      expect({ text, ...(general(text) as object) }).toEqual({ text, pet: { tail: fast.tail, status: fast.status } });
    }
    expect(fastCount).toBeGreaterThan(10);
    // The usual forms do take the fast path, the first one as it stands.
    expect(readNewPetText(bodies[0] as string)).toEqual({ tail: '"name":"bench-pet","categoryId":1,"status":"available"}', status: 'available' });
    expect(readNewPetText(bodies[2] as string)).toEqual({ tail: '"name":"Rex","categoryId":12,"status":"sold"}', status: 'sold' });
    expect(readNewPetText('{"name":"x","categoryId":9223372036854775807}')).toEqual({
      tail: '"name":"x","categoryId":9223372036854775807}',
      status: undefined,
    });
    expect(readNewPetText('{"name":"x","categoryId":-0}')?.tail).toBe('"name":"x","categoryId":0}');
  });

  it('agrees with the general path on bodies made from pieces of the usual form, whitespace and field order', () => {
    const names = ['"Rex"', '"a b"', '" x"', '"\u0041"', '"\t"', '""', '" "', '"\u00a0"', '"\u3000x"', '"été"', '"🐶"', '"a\\b"', '7', 'null'];
    const categories = ['1', '-1', '0', '-0', '00', '1.0', '1e2', '123456789012345', '1234567890123456', '-9223372036854775808', '9223372036854775808', '"1"'];
    const statuses = [undefined, '"sold"', '"pending"', '"available"', '"Sold"', '"sold "', 'null'];
    const spaces = ['', ' ', '\n\t'];
    let seed = 7;
    let fastCount = 0;
    const pick = <T>(xs: readonly T[]): T => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return xs[seed % xs.length] as T;
    };
    for (let n = 0; n < 3000; n++) {
      const w = () => pick(spaces);
      const fields = [`"name"${w()}:${w()}${pick(names)}`, `"categoryId":${w()}${pick(categories)}`];
      const status = pick(statuses);
      if (status !== undefined) fields.push(`${w()}"status":${status}`);
      if (pick([true, false])) fields.reverse();
      const text = `${w()}{${w()}${fields.join(`${w()},`)}${w()}}${w()}`;
      const fast = readNewPetText(text);
      if (fast === undefined) continue;
      fastCount++;
      expect({ text, ...(general(text) as object) }).toEqual({ text, pet: { tail: fast.tail, status: fast.status } });
    }
    expect(fastCount).toBeGreaterThan(300);
  });
});

describe('readNewPetText, bodies as clients write them', () => {
  it('takes the body itself as the tail, and agrees with the general path', () => {
    const statuses = [undefined, 'available', 'pending', 'sold', 'lost'];
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 8 }),
          fc.string({ unit: 'grapheme', maxLength: 210 }),
          fc.constantFrom('', ' ', '\u00a0', 'x'.repeat(200), 'x'.repeat(201)),
        ),
        fc.oneof(
          fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
          fc.bigInt({ min: -1000n, max: 1000n }),
          fc.constantFrom(2n ** 63n, 10n ** 15n, -(10n ** 15n)),
        ),
        fc.constantFrom(...statuses),
        (name, categoryId, status) => {
          const text = `{"name":${JSON.stringify(name)},"categoryId":${categoryId}${status === undefined ? '' : `,"status":"${status}"`}}`;
          const fast = readNewPetText(text);
          if (fast === undefined) return;
          expect({ text, ...(general(text) as object) }).toEqual({ text, pet: { tail: fast.tail, status: fast.status } });
        },
      ),
      { numRuns: 3000 },
    );
    expect(readNewPetText('{"name":"Rex","categoryId":-7}')?.tail).toBe('"name":"Rex","categoryId":-7}');
    for (const text of ['{"name":"Rex","categoryId":-0}', '{"name":"Rex","categoryId":0}', '{"name":"Rex","categoryId":1234567890123456}']) {
      expect({ text, ...(general(text) as object) }).toEqual({ text, pet: readNewPetText(text) });
    }
  });
});

describe('QuotaKeeper.admit', () => {
  it('allows, counts and reports exactly as check() does, and leaves refusals to it', () => {
    const config = { perWindow: 3, windowMs: 1000, perDay: 7, dayWindowMs: 5000, ban: true, banMs: 2000, banGraceMs: 50 };
    const a = new QuotaKeeper(config);
    const b = new QuotaKeeper(config);
    let t = 1_700_000_000_123;
    let seed = 42;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const kinds = new Set<string>();
    for (let i = 0; i < 3000; i++) {
      t += Math.floor(random() * 400);
      const key = random() < 0.8 ? 'k1' : 'k2';
      const expected = b.check(key, t);
      const into = { limit: 0, remaining: 0, reset: 0 };
      const got = a.admit(key, t, into) ? { kind: 'allow' as const, headers: into } : a.check(key, t);
      expect(got).toEqual(expected);
      kinds.add(got.kind);
    }
    expect([...kinds].sort()).toEqual(['allow', 'banned', 'limited']);
  });
});

describe('petJson', () => {
  it('writes names exactly as JSON.stringify does', async () => {
    const { petJson } = await import('../../src/sandbox/types.js');
    const names = [
      'Rex',
      'a"b',
      'back\\slash',
      'tab\there',
      'nul\u0000',
      'été',
      '🐶 dog',
      'lone \ud800 high',
      'lone \udc00 low',
      '\u2028\u2029',
      '/<>&',
      '\u007f',
    ];
    for (const name of names) {
      const json = petJson(7n, { name, categoryId: 9223372036854775807n, status: 'sold' });
      expect(json).toBe(`{"id":7,"name":${JSON.stringify(name)},"categoryId":9223372036854775807,"status":"sold"}`);
    }
    expect(petJson(1n, { name: 'x', categoryId: -1n })).toBe('{"id":1,"name":"x","categoryId":-1}');
  });
});

describe('bodyText', () => {
  /** The rule as written: invalid UTF-8 is refused, a leading BOM dropped. */
  const general = (bytes: Buffer) => (isUtf8(bytes) ? { text: new TextDecoder().decode(bytes) } : { error: 'invalid_json' });
  const fast = (bytes: Buffer) => {
    try {
      return { text: bodyText(bytes) };
    } catch (error) {
      return { error: (error as { code: string }).code };
    }
  };
  it('refuses exactly the invalid UTF-8 and drops a BOM as TextDecoder does', () => {
    const bytes = (...xs: number[]) => Buffer.from(xs);
    const cases = [
      Buffer.from('{"name":"Rex","categoryId":1}'),
      Buffer.from('\uFEFF{"name":"Rex"}'),
      Buffer.from('\uFEFF\uFEFFx'),
      Buffer.from('a \uFFFD b'),
      Buffer.from('été 🐶'),
      bytes(0xff),
      bytes(0xc0, 0x80),
      bytes(0xed, 0xa0, 0x80),
      bytes(0xf4, 0x90, 0x80, 0x80),
      bytes(0xe2, 0x82),
      bytes(0x61, 0xef, 0xbf, 0xbd, 0x80),
      bytes(0xef, 0xbb, 0xbf),
      bytes(),
    ];
    for (const b of cases) expect(fast(b)).toEqual(general(b));
    // Random bytes, and random text with a byte changed here and there.
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), (a) => {
        expect(fast(Buffer.from(a))).toEqual(general(Buffer.from(a)));
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 20 }),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0x80, max: 0xff })), { maxLength: 3 }),
        (text, edits) => {
          const b = Buffer.from(text);
          for (const [at, value] of edits) if (b.length > 0) b[at % b.length] = value;
          expect(fast(b)).toEqual(general(b));
        },
      ),
      { numRuns: 2000 },
    );
  });
});
