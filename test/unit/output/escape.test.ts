import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJson, stringifyJson } from '../../../src/json/int64.js';
import { escapeControl } from '../../../src/output/text.js';

/** Every code point the terminal must never receive raw from data. */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

/** The inverse of the `cell` style (JavaScript string-literal escapes). */
function unescapeCell(text: string): string {
  return text.replace(/\\(?:x([0-9a-f]{2})|u([0-9a-f]{4})|([\\tnr]))/g, (_, x?: string, u?: string, c?: string) => {
    if (x !== undefined || u !== undefined) return String.fromCharCode(Number.parseInt((x ?? u) as string, 16));
    return { '\\': '\\', t: '\t', n: '\n', r: '\r' }[c as string] as string;
  });
}

/** Strings rich in what matters here: controls, bidi overrides, backslashes and look-alike escapes. */
const hostile = fc
  .array(
    fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.constantFrom(
        '\u001b',
        '\u001b]0;title\u0007',
        '\u001b[2J',
        '\u009b',
        '\u007f',
        '\u202e',
        '\u2066',
        '\u2069',
        '\\',
        '\\x1b',
        '\\u202e',
        '\t',
        '\n',
        '\r',
      ),
    ),
    { maxLength: 8 },
  )
  .map((parts) => parts.join(''));

describe('escapeControl: the one escaping function for data on a terminal', () => {
  it('shows each unsafe code point in one visible form', () => {
    expect(escapeControl('\u001b]0;title\u0007', 'cell')).toBe('\\x1b]0;title\\x07');
    expect(escapeControl('a\tb\nc\rd', 'cell')).toBe('a\\tb\\nc\\rd');
    expect(escapeControl('\u009b2J \u007f \u0085', 'cell')).toBe('\\x9b2J \\x7f \\x85');
    expect(escapeControl('\u202egpj.exe \u2066x\u2069', 'cell')).toBe('\\u202egpj.exe \\u2066x\\u2069');
    expect(escapeControl('C:\\pets', 'cell')).toBe('C:\\\\pets');
    // Prose keeps its backslashes; text of many lines keeps its newlines and tabs.
    expect(escapeControl('C:\\pets \u001b[2J\n', 'line')).toBe('C:\\pets \\x1b[2J\\n');
    expect(escapeControl('a\tb\nc\u001b\r\n', 'text')).toBe('a\tb\nc\\x1b\\r\n');
    // Wide, emoji and accented text is not touched.
    expect(escapeControl('猫 🐈 é ü', 'cell')).toBe('猫 🐈 é ü');
  });

  it('cell: nothing unsafe remains, and the escape is reversible (hence injective: two names never look alike)', () => {
    fc.assert(
      fc.property(hostile, (text) => {
        const shown = escapeControl(text, 'cell');
        expect(shown).not.toMatch(UNSAFE);
        expect(unescapeCell(shown)).toBe(text);
      }),
    );
  });

  it('line and text: nothing unsafe remains but, for text, its newlines and tabs', () => {
    fc.assert(
      fc.property(hostile, (text) => {
        expect(escapeControl(text, 'line')).not.toMatch(UNSAFE);
        expect(escapeControl(text, 'text').replace(/[\t\n]/g, '')).not.toMatch(UNSAFE);
      }),
    );
  });

  it('json: still valid JSON of the same value, with no unsafe code point but its layout', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ id: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), name: hostile })), (pets) => {
        for (const indent of [undefined, 2]) {
          const json = stringifyJson(pets, indent);
          const shown = escapeControl(json, 'json');
          expect(shown.replace(/\n/g, '')).not.toMatch(UNSAFE);
          expect(parseJson(shown)).toEqual(parseJson(json));
        }
      }),
    );
    expect(escapeControl(stringifyJson({ name: '\u202e\u009b\u001b' }), 'json')).toBe('{"name":"\\u202e\\u009b\\u001b"}');
  });
});
