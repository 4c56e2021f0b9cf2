// processAlive (src/fs/local-process.ts) on real processes: one running, one gone, and a zombie (killed,
// never reaped: the background job of a shell that then `exec`s into something that never waits),
// which still has its pid but holds nothing: a lock it left is broken at once.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileLock } from '../../../src/fs/lock.js';
import { processAlive, thisHost } from '../../../src/fs/local-process.js';
import { tempDir } from '../../helpers/cli.js';
import { FakeClock } from '../http/fake-clock.js';

const tmp = tempDir('petstore-local-process-');
const parents: Array<ReturnType<typeof spawn>> = [];
afterAll(() => {
  for (const p of parents) p.kill('SIGKILL');
  tmp.cleanup();
});

/** A zombie's pid: sh starts `sleep` in the background, prints its pid and becomes a `sleep` that never reaps it; then the job is killed. */
async function zombie(): Promise<number> {
  const parent = spawn('sh', ['-c', 'sleep 60 & echo $!; exec sleep 60'], { stdio: ['ignore', 'pipe', 'inherit'] });
  parents.push(parent);
  const pid = await new Promise<number>((resolve) => parent.stdout!.once('data', (d: Buffer) => resolve(Number(String(d).trim()))));
  const deadline = Date.now() + 5000;
  // Killed only once sh has become the `sleep` that never waits: before its exec, sh may still reap it
  // (a loaded machine left the job killed and gone, not a zombie).
  while (!readFileSync(`/proc/${parent.pid}/cmdline`, 'latin1').startsWith('sleep')) {
    if (Date.now() > deadline) throw new Error(`sh (${parent.pid}) did not exec sleep`);
    await new Promise((r) => setTimeout(r, 5));
  }
  process.kill(pid, 'SIGKILL');
  const state = () => readFileSync(`/proc/${pid}/stat`, 'latin1').split(') ')[1]?.charAt(0);
  while (state() !== 'Z') {
    if (Date.now() > deadline) throw new Error(`process ${pid} did not become a zombie`);
    await new Promise((r) => setTimeout(r, 5));
  }
  // It still answers kill(pid, 0): what processAlive looked at alone before.
  process.kill(pid, 0);
  return pid;
}

describe.runIf(process.platform === 'linux')('processAlive', () => {
  it('this process and its parent run; a pid nobody has does not', () => {
    expect(processAlive(process.pid)).toBe(true);
    expect(processAlive(process.ppid)).toBe(true);
    expect(processAlive(2 ** 22 + 1)).toBe(false);
  });

  it('a zombie (killed, never reaped) does not', async () => {
    expect(processAlive(await zombie())).toBe(false);
  });

  it('a lock a zombie left is broken at once', async () => {
    const pid = await zombie();
    const path = join(tmp.dir, 'journal.lock');
    const clock = new FakeClock(Date.now());
    writeFileSync(path, `${pid} ${thisHost} ${clock.now()} abc123\n`);
    const debug: string[] = [];
    const lock = new FileLock(path, { clock, staleMs: 5000, pollMs: 5, debug: (l) => debug.push(l) });
    expect(await lock.acquire()).toBe(true);
    expect(clock.sleeps).toEqual([]);
    expect(debug.join('\n')).toContain(`process ${pid} is gone`);
    lock.release();
  });
});
