import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { fitWidths, heading, renderTable } from '../../../src/output/table.js';

const headers = ['id', 'name', 'categoryId', 'status'];
const fits = ['never', 'first', 'never', undefined] as const;
const pet = (id: string, name: string, status = 'available') => [{ text: id }, { text: name }, { text: '9007199254740993' }, { text: status }];

/** The display column where `needle` starts on each line. */
const columnOf = (lines: string[], needle: RegExp) =>
  lines.map((l) => {
    const i = l.search(needle);
    return i === -1 ? -1 : stringWidth(l.slice(0, i));
  });

describe('terminal tables', () => {
  it('heads columns in upper case, camelCase split into words', () => {
    expect(['id', 'categoryId', 'baseUrl', 'resetInSeconds', 'would_create'].map(heading)).toEqual([
      'ID',
      'CATEGORY ID',
      'BASE URL',
      'RESET IN SECONDS',
      'WOULD CREATE',
    ]);
  });

  it('cuts the name first, with "…", so every line fits the terminal; ids are never cut', async () => {
    const rows = [pet('9223372036854775807', 'A very long name '.repeat(8)), pet('2', 'Rex')];
    const out = await renderTable({ tty: true, color: false, columns: 80 }, headers, rows, fits);
    const lines = out.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(stringWidth(line)).toBeLessThanOrEqual(80);
    expect(lines[1]).toMatch(/^9223372036854775807 {2}A very long name .*… {2}9007199254740993 {2}available$/);
    expect(lines[2]).toMatch(/^2 +Rex +9007199254740993 {2}available$/);
    // Wide enough: nothing is cut.
    const wide = await renderTable({ tty: true, color: false, columns: 300 }, headers, rows, fits);
    expect(wide).not.toContain('…');
  });

  it('measures wide characters and emoji by their display width, and never cuts inside one', async () => {
    const rows = [pet('1', '猫猫猫猫猫猫猫猫猫猫猫猫猫猫猫猫猫猫猫猫'), pet('2', '👩‍👩‍👧‍👦 family 🐈‍⬛ cat 🐕 dog 🐇 rabbit and more'), pet('3', 'Rex')];
    for (const columns of [60, 61, 80]) {
      const lines = (await renderTable({ tty: true, color: false, columns }, headers, rows, fits)).trimEnd().split('\n');
      for (const line of lines) expect(stringWidth(line)).toBeLessThanOrEqual(columns);
      // The category column starts at the same display column on every line: alignment holds.
      expect(new Set(columnOf(lines, /9007199254740993|CATEGORY/)).size).toBe(1);
      expect(lines[2]).not.toContain('\u200d…');
    }
  });

  it('aligns on the escaped text: an ESC shown as \\x1b takes its four columns', async () => {
    const rows = [pet('1', 'evil\u001b[2J\u202ename'), pet('2', 'Rex')];
    const out = await renderTable({ tty: true, color: false, columns: 200 }, headers, rows, fits);
    expect(out).not.toMatch(/[\u001b\u202e]/);
    const lines = out.trimEnd().split('\n');
    expect(lines[1]).toContain('evil\\x1b[2J\\u202ename');
    expect(new Set(columnOf(lines, /9007199254740993|CATEGORY/)).size).toBe(1);
  });

  it('prints rows only with headers: false, on a terminal and piped', async () => {
    const rows = [pet('1', 'Rex')];
    expect(await renderTable({ tty: true, color: false, headers: false }, headers, rows, fits)).toBe('1  Rex  9007199254740993  available\n');
    expect(await renderTable({ tty: false, color: false, headers: false }, headers, rows, fits)).toBe('1\tRex\t9007199254740993\tavailable\n');
  });

  it('fitWidths: the first column gives way first, then the widest others, never the kept ones', () => {
    expect(fitWidths([5, 30, 10, 9], ['never', 'first', 'never', undefined], 2, 200)).toEqual([5, 30, 10, 9]);
    expect(fitWidths([5, 30, 10, 9], ['never', 'first', 'never', undefined], 2, 40)).toEqual([5, 10, 10, 9]);
    expect(fitWidths([5, 30, 10, 9], ['never', 'first', 'never', undefined], 2, 32)).toEqual([5, 5, 10, 6]);
    // Too narrow even so: the minimum widths, ids whole.
    expect(fitWidths([5, 30, 10, 9], ['never', 'first', 'never', undefined], 2, 10)).toEqual([5, 5, 10, 5]);
  });
});
