// The data file's group commit: the creates of one turn of the event loop share one write(2), and each is
// told only once its line is in the file.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DataLog } from '../../src/sandbox/data-log.js';

const HEADER = '{"petstore-sandbox-data":2,"nextId":1}\n';
const line = (i: number) => `{"id":${i},"name":"p${i}","categoryId":1}\n`;

describe('sandbox data file, group commit', () => {
  let dir: string;
  let file: string;
  let log: DataLog | undefined;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'petstore-group-commit-'));
    file = join(dir, 'pets.data');
  });
  afterEach(async () => {
    await log?.close();
    log = undefined;
    await rm(dir, { recursive: true, force: true });
  });

  it('lines added in one turn are written together at its end, each done once its line is in the file', async () => {
    log = await DataLog.open(file, { text: () => HEADER, pets: () => 0 });
    const seen: Array<{ i: number; error: Error | undefined; inFile: boolean }> = [];
    for (let i = 1; i <= 5; i++) {
      log.add(line(i), i, (n, error) => seen.push({ i: n, error, inFile: readFileSync(file, 'utf8').includes(line(n)) }));
    }
    // Nothing written or answered yet: the turn is not over.
    expect(log.writes).toBe(0);
    expect(seen).toEqual([]);
    await new Promise((r) => setImmediate(r));
    expect(log.writes).toBe(1);
    expect(seen).toEqual([1, 2, 3, 4, 5].map((i) => ({ i, error: undefined, inFile: true })));
    expect(readFileSync(file, 'utf8')).toBe(HEADER + [1, 2, 3, 4, 5].map(line).join(''));

    // The next turn's lines are the next write.
    log.add(line(6), 6, () => {});
    log.add(line(7), 7, () => {});
    await new Promise((r) => setImmediate(r));
    expect(log.writes).toBe(2);
  });

  it('append() writes at once, with the lines waiting before it, in order', async () => {
    log = await DataLog.open(file, { text: () => HEADER, pets: () => 0 });
    const done: number[] = [];
    log.add(line(1), 1, (n) => done.push(n));
    await log.append(line(2));
    expect(done).toEqual([1]);
    expect(log.writes).toBe(1);
    expect(readFileSync(file, 'utf8')).toBe(HEADER + line(1) + line(2));
  });

  it('after close, a line is refused at once', async () => {
    const closed = await DataLog.open(file, { text: () => HEADER, pets: () => 0 });
    await closed.close();
    let error: Error | undefined;
    closed.add(line(1), 1, (_n, e) => {
      error = e;
    });
    expect(error?.message).toContain('closed');
    await expect(closed.append(line(2))).rejects.toThrow(/closed/);
  });
});
