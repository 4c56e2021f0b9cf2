// The stale-lock takeover is atomic: 8 real processes keep planting a stale lock (a dead process's)
// whenever the lock is free and then race to take it, 40 rounds each; a critical section marked with an
// O_EXCL file must never have two holders. A delete-then-create takeover (this module before issue #15)
// let two processes in 12 to 26 times in 320 rounds; the guarded one, never.
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { bundleForWorker } from '../../helpers/bundle.js';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { tempDir } from '../../helpers/cli.js';

const run = promisify(execFile);

let tmp: { dir: string; cleanup: () => void };
beforeEach(() => {
  tmp = tempDir('petstore-lock-race-');
});
afterEach(() => tmp.cleanup());

it('8 processes racing over stale locks: never two holders at once', async () => {
  const bundle = join(tmp.dir, 'lock.mjs');
  await bundleForWorker(new URL('../../../src/fs/lock.ts', import.meta.url).pathname, bundle);
  const script = join(tmp.dir, 'worker.mjs');
  writeFileSync(
    script,
    `import { closeSync, linkSync, openSync, unlinkSync, writeFileSync } from 'node:fs';
     import { hostname } from 'node:os';
     import { FileLock } from ${JSON.stringify(bundle)};
     const [lockPath, deadPid] = process.argv.slice(2);
     const clock = { now: () => Date.now(), sleep: (ms) => new Promise((r) => setTimeout(r, ms)) };
     const stale = lockPath + '.stale.' + process.pid;
     writeFileSync(stale, deadPid + ' ' + hostname() + ' ' + Date.now() + '\\n');
     let overlaps = 0;
     for (let i = 0; i < 40; i++) {
       try { linkSync(stale, lockPath); } catch {}
       const l = new FileLock(lockPath, { clock, staleMs: 5000, pollMs: 1 });
       await l.acquire();
       try { closeSync(openSync(lockPath + '.inside', 'wx')); } catch { overlaps++; }
       const until = Date.now() + 2; while (Date.now() < until) {}
       try { unlinkSync(lockPath + '.inside'); } catch {}
       l.release();
     }
     unlinkSync(stale);
     console.log(overlaps);`,
  );
  const dead = Number((await run(process.execPath, ['-e', 'console.log(process.pid)'])).stdout.trim());
  const lockPath = join(tmp.dir, 'x.lock');
  const outs = await Promise.all(Array.from({ length: 8 }, () => run(process.execPath, [script, lockPath, String(dead)])));
  expect(outs.map((o) => Number(o.stdout.trim()))).toEqual(Array.from({ length: 8 }, () => 0));
}, 60_000);
