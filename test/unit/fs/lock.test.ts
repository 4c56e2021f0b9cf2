// src/fs/lock.ts in process, on a fake clock: what it breaks and when, how it waits (backoff, never
// a zero pause), how a wait ends (timeout, signal), and that release and takeover never remove
// another process's lock. The real-process matrix (both locks, the built CLI) is test/e2e/locks.test.ts.
import { existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InterruptedError } from '../../../src/errors/errors.js';
import { FileLock, type FileLockOptions } from '../../../src/fs/lock.js';
import { tempDir } from '../../helpers/cli.js';
import { FakeClock } from '../http/fake-clock.js';

const T0 = Date.UTC(2030, 0, 1, 12, 0, 0);

let tmp: { dir: string; cleanup: () => void };
let path: string;
beforeEach(() => {
  tmp = tempDir('petstore-lock-');
  path = join(tmp.dir, 'x.lock');
});
afterEach(() => tmp.cleanup());

function lock(clock: FakeClock, opts: Partial<FileLockOptions> = {}, debug: string[] = []) {
  return new FileLock(path, { clock, staleMs: 5000, pollMs: 5, debug: (l) => debug.push(l), ...opts });
}

/** A lock as a live petstore process on this host writes it (the test runner's parent stands in). */
const live = (at = T0) => `${process.ppid} ${hostname()} ${at} abc123\n`;

describe('FileLock', () => {
  it('takes a free lock: "<pid> <host> <time> <token>", removed on release, no other file left', async () => {
    const clock = new FakeClock(T0);
    const l = lock(clock);
    expect(await l.acquire()).toBe(true);
    expect(readFileSync(path, 'utf8')).toMatch(new RegExp(`^${process.pid} ${hostname()} ${T0} [a-z0-9]+\\n$`));
    l.release();
    expect(existsSync(path)).toBe(false);
    expect(existsSync(`${path}.break`)).toBe(false);
    expect(clock.sleeps).toEqual([]);
  });

  it.each([
    ['empty', () => writeFileSync(path, '')],
    ['garbage', () => writeFileSync(path, '\u0000\u00ff garbage')],
    ['a directory', () => mkdirSync(join(path, 'sub'), { recursive: true })],
    ['dated in the future', () => writeFileSync(path, live(T0 + 86_400_000))],
    // A container's pid 1 after a restart: our pid, but not a lock this process holds.
    ['our pid, not ours', () => writeFileSync(path, `${process.pid} ${hostname()} ${T0} zzz999\n`)],
  ])('breaks a lock that is %s at once, without sleeping', async (_what, make) => {
    make();
    const clock = new FakeClock(T0);
    const debug: string[] = [];
    const l = lock(clock, {}, debug);
    expect(await l.acquire()).toBe(true);
    expect(clock.sleeps).toEqual([]);
    expect(debug.join('\n')).toMatch(/breaking stale lock/);
    l.release();
  });

  it('waits for a live holder with a doubling, capped backoff (never a zero pause), then breaks it after staleMs', async () => {
    writeFileSync(path, live());
    const clock = new FakeClock(T0);
    const l = lock(clock, { pollMs: 5, maxPollMs: 80 });
    expect(await l.acquire()).toBe(true);
    const pauses = clock.sleeps.map((s) => s.ms);
    expect(Math.min(...pauses)).toBeGreaterThanOrEqual(1);
    expect(Math.max(...pauses)).toBeLessThanOrEqual(120);
    // 5 s at up to 120 ms a pause: about 60 pauses, not thousands.
    expect(pauses.length).toBeLessThan(150);
    expect(clock.now()).toBeGreaterThan(T0 + 5000);
    expect(clock.now()).toBeLessThanOrEqual(T0 + 5001);
    l.release();
  });

  it('gives up after timeoutMs with one line naming the file and the holder', async () => {
    writeFileSync(path, live());
    const clock = new FakeClock(T0);
    const err = await lock(clock, { timeoutMs: 1000 })
      .acquire()
      .catch((e: unknown) => e);
    expect((err as Error).message).toBe(
      `timed out after 1.0 s waiting for the lock ${path} (held by petstore process ${process.ppid}); if no petstore process is running, delete that file`,
    );
    expect(clock.now()).toBe(T0 + 1000);
    expect(existsSync(path)).toBe(true);
  });

  it('stops waiting when the signal aborts, with the signal’s own reason', async () => {
    writeFileSync(path, live());
    const clock = new FakeClock(T0);
    const controller = new AbortController();
    const reason = new InterruptedError('interrupted', { signal: 'SIGTERM' });
    const p = lock(clock, { signal: controller.signal }).acquire();
    await new Promise((r) => setImmediate(r));
    controller.abort(reason);
    await expect(p).rejects.toBe(reason);
  });

  it('release leaves a lock that is no longer its own (taken over while held too long)', async () => {
    const clock = new FakeClock(T0);
    const l = lock(clock);
    expect(await l.acquire()).toBe(true);
    // Another process broke it as stale and took it: a new file at the same path.
    writeFileSync(`${path}.other`, live());
    const { renameSync } = await import('node:fs');
    renameSync(`${path}.other`, path);
    l.release();
    expect(readFileSync(path, 'utf8')).toBe(live());
  });

  it('a takeover in progress elsewhere (a fresh guard) is waited for; a guard left by a crash is removed', async () => {
    writeFileSync(path, 'garbage');
    writeFileSync(`${path}.break`, '');
    const clock = new FakeClock(T0);
    // The guard is fresh (by the file system's clock): no takeover while it is there.
    const err = await lock(clock, { timeoutMs: 200 })
      .acquire()
      .catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/stale \(not a petstore lock\) and cannot be removed/);
    expect(readFileSync(path, 'utf8')).toBe('garbage');
    // Two minutes old: its process died in the microseconds it holds it.
    const old = new Date(Date.now() - 120_000);
    utimesSync(`${path}.break`, old, old);
    const l = lock(clock);
    expect(await l.acquire()).toBe(true);
    l.release();
    expect(existsSync(`${path}.break`)).toBe(false);
  });

  it('a lock taken after a long wait is dated when it was taken, not when the wait began', async () => {
    writeFileSync(path, live());
    const clock = new FakeClock(T0);
    const l = lock(clock, { pollMs: 5, maxPollMs: 80 });
    expect(await l.acquire()).toBe(true);
    const at = Number(readFileSync(path, 'utf8').split(' ')[2]);
    expect(at).toBeGreaterThan(T0 + 5000);
    // Another process looking now finds it live, not stale.
    expect(lock(clock).holder()).toEqual({ pid: process.pid });
    l.release();
  });

  it('two holders in one process take turns', async () => {
    const clock = new FakeClock(T0);
    const a = lock(clock);
    const b = lock(clock);
    expect(await a.acquire()).toBe(true);
    let bHas = false;
    const pb = b.acquire().then((v) => (bHas = v));
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    expect(bHas).toBe(false);
    a.release();
    await pb;
    expect(bHas).toBe(true);
    b.release();
  });
});
