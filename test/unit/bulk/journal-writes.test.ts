// The journal's writes: each line in one write(2), as it comes; a failed write hands the outcome lines
// to `unwritten`, so none is lost without a word.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Journal } from '../../../src/bulk/journal.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function openJournal(path?: string): Promise<{ journal: Journal; path: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'journal-writes-'));
  dirs.push(dir);
  const file = path ?? join(dir, 'results.ndjson');
  const journal = await Journal.open(file, { input: undefined, inputLabel: '--file pets.ndjson', label: 'the journal' });
  return { journal, path: file };
}

describe('journal writes', () => {
  it('writes each line as it comes', async () => {
    const { journal, path } = await openJournal();
    journal.start('{"header":1}\n');
    journal.sending('{"line":1,"status":"sending"}\n');
    journal.outcome('{"line":1,"status":"created"}\n');
    expect(readFileSync(path, 'utf8')).toBe('{"header":1}\n{"line":1,"status":"sending"}\n{"line":1,"status":"created"}\n');
    journal.outcome('{"finished":"x"}\n');
    await journal.close();
    expect(readFileSync(path, 'utf8').endsWith('{"line":1,"status":"created"}\n{"finished":"x"}\n')).toBe(true);
  });

  it('hands the outcome lines to `unwritten` once a write fails, and refuses to mark a record in flight', async () => {
    // /dev/full: every write fails with ENOSPC, as on a full disk.
    const { journal } = await openJournal('/dev/full');
    const failures: unknown[] = [];
    journal.onFailure((e) => failures.push(e));
    journal.outcome('{"line":1,"status":"created"}\n');
    journal.outcome('{"line":2,"status":"failed"}\n');
    expect(() => journal.sending('{"line":3,"status":"sending"}\n')).toThrow(/cannot write the journal/);
    expect(journal.unwritten).toBe('{"line":1,"status":"created"}\n{"line":2,"status":"failed"}\n');
    expect(failures).toHaveLength(1);
    await journal.close();
  });
});
