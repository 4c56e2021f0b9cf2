// src/bulk/held-lines.ts: a dry run's lines held back until every record has passed, then copied out
// unchanged (through `seal`), in memory while small, in an unlinked temporary file past that; when no
// such file can be made the lines are dropped and `failed` says so.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HeldLines, type LineOutput } from '../../../src/bulk/held-lines.js';

/** What a copy hands over, decoded as the stream would write it. */
function collector(): LineOutput & { text: () => string; writes: number } {
  const parts: Buffer[] = [];
  return {
    writes: 0,
    async writeText(text, encoding) {
      this.writes++;
      parts.push(Buffer.from(text, encoding));
    },
    text: () => Buffer.concat(parts).toString('utf8'),
  };
}

const lines = (n: number, tag = 'pet') => Array.from({ length: n }, (_, i) => `{"line":${i + 1},"name":"${tag}-${i + 1} é 😀"}\n`);

let dir = '';
const savedTmp = process.env.TMPDIR;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'held-lines-test-'));
  process.env.TMPDIR = dir;
});
afterEach(() => {
  process.env.TMPDIR = savedTmp;
  if (savedTmp === undefined) delete process.env.TMPDIR;
  rmSync(dir, { recursive: true, force: true });
});

describe('HeldLines', () => {
  it('a few lines stay in memory: copied out whole, even with no temporary folder at all', async () => {
    process.env.TMPDIR = join(dir, 'missing');
    const held = new HeldLines();
    for (const l of lines(20)) held.add(l);
    held.end();
    expect(held.failed).toBe(false);
    const out = collector();
    expect(await held.copyTo(out, () => false)).toBe(20);
    expect(out.text()).toBe(lines(20).join(''));
  });

  it('many lines go through a file that is already gone from the folder: copied out byte for byte (UTF-8 across chunk edges), counted', async () => {
    const held = new HeldLines();
    const all = lines(20_000);
    for (const l of all) held.add(l);
    held.end();
    // The file was unlinked as soon as it was opened: a kill leaves nothing.
    expect(readdirSync(dir)).toEqual([]);
    const out = collector();
    expect(await held.copyTo(out, () => false)).toBe(20_000);
    expect(out.writes).toBeGreaterThan(1);
    expect(out.text()).toBe(all.join(''));
    held.dispose();
  });

  it('a copy stopped early says how many whole lines it handed over', async () => {
    const held = new HeldLines();
    for (const l of lines(20_000)) held.add(l);
    held.end();
    const out = collector();
    const copied = await held.copyTo(out, () => out.writes >= 2);
    const text = out.text();
    expect(text.length).toBeGreaterThan(0);
    expect(copied).toBe(text.split('\n').length - 1);
    expect(copied).toBeLessThan(20_000);
    held.dispose();
  });

  it('without a temporary folder to write to, many lines are dropped and `failed` is set', () => {
    process.env.TMPDIR = join(dir, 'missing');
    const held = new HeldLines();
    for (const l of lines(20_000)) held.add(l);
    held.end();
    expect(held.failed).toBe(true);
  });

  it('every block goes through `seal` on its way out, in memory and from the file alike', async () => {
    for (const n of [5, 20_000]) {
      const held = new HeldLines((block) => block.replaceAll('pet-', 'PET-'));
      for (const l of lines(n)) held.add(l);
      held.end();
      const out = collector();
      expect(await held.copyTo(out, () => false)).toBe(n);
      expect(out.text()).toBe(lines(n, 'PET').join(''));
      held.dispose();
    }
  });
});
