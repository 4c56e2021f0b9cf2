// makeDir (src/fs/make-dir.ts): mkdirSync's recursive contract, one level at a time. Where Node's own
// recursive mkdir never returns (/proc/self/x), a child process with a deadline: a regression fails here
// instead of holding up the suite (test/e2e/storage-folders.test.ts runs the CLI there).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { makeDir } from '../../../src/fs/make-dir.js';

const root = mkdtempSync(join(tmpdir(), 'petstore-make-dir-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const code = (f: () => unknown) => {
  try {
    f();
  } catch (error) {
    return (error as NodeJS.ErrnoException).code;
  }
  return 'no error';
};

describe('makeDir', () => {
  it('makes the missing folders with the mode, and answers the first it made', () => {
    const dir = join(root, 'a', 'b', 'c');
    expect(makeDir(dir, 0o700)).toBe(join(root, 'a'));
    for (const p of [join(root, 'a'), join(root, 'a', 'b'), dir]) expect(statSync(p).mode & 0o777).toBe(0o700);
  });

  it('a folder already there: undefined, nothing changed', () => {
    expect(makeDir(root, 0o700)).toBeUndefined();
    expect(makeDir(join(root, 'a', 'b'), 0o755)).toBeUndefined();
    expect(makeDir(join(root, 'a', 'b', 'd'), 0o700)).toBe(join(root, 'a', 'b', 'd'));
  });

  it('a file in the way: the system’s codes, as a recursive mkdirSync gives them', () => {
    const file = join(root, 'file');
    writeFileSync(file, 'x');
    expect(code(() => makeDir(file, 0o700))).toBe('EEXIST');
    expect(code(() => makeDir(join(file, 'x', 'y'), 0o700))).toBe('ENOTDIR');
  });

  it('a folder another process makes meanwhile, at any level: already there, not an error', () => {
    // Two processes making <home>/petstore at once: both find <home> missing; the other one makes
    // <home> and then <home>/petstore between this one's calls. (CI saw EEXIST from exactly that.)
    const home = join(root, 'race');
    const dir = join(home, 'petstore');
    const calls = {
      statSync,
      mkdirSync(path: string, options: { mode: number }) {
        if (path === home) {
          mkdirSync(home, { mode: 0o700 });
          mkdirSync(dir, { mode: 0o700 });
        }
        return mkdirSync(path, options);
      },
    };
    expect(makeDir(dir, 0o700, calls)).toBeUndefined();
    expect(statSync(dir).isDirectory()).toBe(true);
    // The other process made only <home>/petstore: this one made <home>, and answers it.
    const home2 = join(root, 'race2');
    const dir2 = join(home2, 'petstore');
    let made = false;
    const calls2 = {
      statSync,
      mkdirSync(path: string, options: { mode: number }) {
        const r = mkdirSync(path, options);
        if (path === home2 && !made) {
          made = true;
          mkdirSync(dir2, { mode: 0o700 });
        }
        return r;
      },
    };
    expect(makeDir(dir2, 0o700, calls2)).toBe(home2);
    expect(statSync(dir2).isDirectory()).toBe(true);
  });

  it.runIf(process.platform === 'linux')(
    'a folder that exists but takes no new folder (ENOENT, /proc/self): an error at once, where mkdirSync never returns',
    () => {
      const module = pathToFileURL(join(import.meta.dirname, '../../../src/fs/make-dir.ts')).href;
      const script = `import { makeDir } from ${JSON.stringify(module)};
try { makeDir('/proc/self/petstore/x', 0o700); console.log('made'); } catch (e) { console.log(e.code); }`;
      const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 10_000, killSignal: 'SIGKILL' });
      expect(r.signal).toBeNull();
      expect(r.stdout).toBe('ENOENT\n');
    },
  );
});
