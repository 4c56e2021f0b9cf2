// The journal's writes (issue #18): outcome lines are held until the next `sending` line, which takes
// them along in the same write(2), or until the promise continuations of the turn have run; a failed write hands the
// held outcomes to `unwritten`, so none is lost without a word.
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

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('journal writes', () => {
  it('writes an outcome with the next sending line, before that line, in one step', async () => {
    const { journal, path } = await openJournal();
    journal.start('{"header":1}\n');
    journal.sending('{"line":1,"status":"sending"}\n');
    journal.outcome('{"line":1,"status":"created"}\n');
    // Held: not yet in the file.
    expect(readFileSync(path, 'utf8')).toBe('{"header":1}\n{"line":1,"status":"sending"}\n');
    journal.sending('{"line":2,"status":"sending"}\n');
    // Synchronously, with no turn in between: the outcome went out with line 2's mark, before it.
    expect(readFileSync(path, 'utf8')).toBe('{"header":1}\n{"line":1,"status":"sending"}\n{"line":1,"status":"created"}\n{"line":2,"status":"sending"}\n');
    await journal.close();
  });

  it('writes held outcomes at the end of the turn when no request follows', async () => {
    const { journal, path } = await openJournal();
    journal.start('{"header":1}\n');
    journal.sending('{"line":1,"status":"sending"}\n');
    journal.outcome('{"line":1,"status":"created"}\n');
    await turn();
    expect(readFileSync(path, 'utf8')).toBe('{"header":1}\n{"line":1,"status":"sending"}\n{"line":1,"status":"created"}\n');
    journal.outcome('{"finished":"x"}\n');
    await journal.close();
    expect(readFileSync(path, 'utf8').endsWith('{"line":1,"status":"created"}\n{"finished":"x"}\n')).toBe(true);
  });

  it('hands the held outcomes to `unwritten` when the write that carries them fails', async () => {
    // /dev/full: every write fails with ENOSPC, as on a full disk.
    const { journal } = await openJournal('/dev/full');
    const failures: unknown[] = [];
    journal.onFailure((e) => failures.push(e));
    journal.outcome('{"line":1,"status":"created"}\n');
    journal.outcome('{"line":2,"status":"failed"}\n');
    expect(() => journal.sending('{"line":3,"status":"sending"}\n')).toThrow(/cannot write the journal/);
    expect(journal.unwritten).toBe('{"line":1,"status":"created"}\n{"line":2,"status":"failed"}\n');
    expect(failures).toHaveLength(1);
    journal.outcome('{"line":4,"status":"created"}\n');
    expect(journal.unwritten.endsWith('{"line":4,"status":"created"}\n')).toBe(true);
    await journal.close();
  });
});
