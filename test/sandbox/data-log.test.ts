// The data file's writer: each line is in the file when append() returns, and none is taken once it is closed.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DataLog } from '../../src/sandbox/data-log.js';

const HEADER = '{"petstore-sandbox-data":2,"nextId":1}\n';
const line = (i: number) => `{"id":${i},"name":"p${i}","categoryId":1}\n`;

describe('sandbox data file writer', () => {
  let dir: string;
  let file: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'petstore-data-log-'));
    file = join(dir, 'pets.data');
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes each line before append() returns, in order', () => {
    const log = new DataLog(file, HEADER);
    for (let i = 1; i <= 3; i++) {
      log.append(line(i));
      expect(readFileSync(file, 'utf8')).toBe(HEADER + [1, 2, 3].slice(0, i).map(line).join(''));
    }
    expect(log.writes).toBe(3);
    log.close();
  });

  it('after close, a line is refused', () => {
    const log = new DataLog(file, HEADER);
    log.close();
    expect(() => log.append(line(1))).toThrow(/closed/);
    expect(readFileSync(file, 'utf8')).toBe(HEADER);
  });
});
