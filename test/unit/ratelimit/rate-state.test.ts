import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { bundleForWorker } from '../../helpers/bundle.js';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RateLimiter } from '../../../src/ratelimit/limiter.js';
import { FileRateStateStore, rateStateKey, rateStatePath } from '../../../src/ratelimit/rate-state.js';
import { tempDir } from '../../helpers/cli.js';
import { FakeClock } from '../http/fake-clock.js';

const T0 = Date.UTC(2030, 0, 1, 12, 0, 0);
const run = promisify(execFile);

let tmp: { dir: string; cleanup: () => void };
let dir: string;
beforeEach(() => {
  tmp = tempDir('petstore-rate-state-');
  dir = join(tmp.dir, 'petstore');
});
afterEach(() => tmp.cleanup());

function store(clock = new FakeClock(T0), debug: string[] = []) {
  return new FileRateStateStore(rateStatePath(dir), { clock, debug: (l) => debug.push(l) });
}

describe('rateStateKey', () => {
  it('is "<env>:<16 hex of sha256(base URL, key)>" and never contains the key', () => {
    const key = 'sk_live_supersecret_0123456789';
    const url = 'https://api.example.com/v1';
    const k = rateStateKey('production', url, key);
    expect(k).toMatch(/^production:[0-9a-f]{16}$/);
    expect(k).not.toContain('supersecret');
    expect(rateStateKey('production', url, key)).toBe(k);
    expect(rateStateKey('staging', url, key)).not.toBe(k);
    expect(rateStateKey('production', url, `${key}x`)).not.toBe(k);
    // The same key against another server (PETSTORE_BASE_URL pointing at a sandbox) is another limit.
    expect(rateStateKey('production', 'http://127.0.0.1:4010/v1', key)).not.toBe(k);
  });

  it("is the same as node:crypto's sha256 gives, so state files written by earlier versions stay shared", () => {
    const nodeKey = (env: string, url: string, key: string) => `${env}:${createHash('sha256').update(`${url}\n${key}`, 'utf8').digest('hex').slice(0, 16)}`;
    expect(rateStateKey('production', 'https://api.example.com/v1', 'sk_live_supersecret_0123456789')).toBe(
      nodeKey('production', 'https://api.example.com/v1', 'sk_live_supersecret_0123456789'),
    );
    // Any text, of any length (SHA-256 pads in 64-byte blocks: lengths around 55/56/64 bytes matter).
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 90 }), fc.string({ unit: 'binary', maxLength: 140 }), (url, key) => {
        expect(rateStateKey('staging', url, key)).toBe(nodeKey('staging', url, key));
      }),
      { numRuns: 500 },
    );
  });
});

describe('FileRateStateStore', () => {
  it('writes rate-state.json 0600 in a 0700 folder, without the key, and leaves no temp or lock files', async () => {
    const s = store();
    const key = rateStateKey('production', 'https://api.example.com/v1', 'sk_secret_value_123456');
    await s.update(key, (st) => {
      st.quota = { limit: 60, remaining: 57, resetAt: T0 + 42_000, seenAt: T0 };
      st.gateUntil = T0 + 1000;
    });
    const path = rateStatePath(dir);
    expect(path).toBe(join(dir, 'rate-state.json'));
    if (process.platform !== 'win32') {
      expect(statSync(path).mode & 0o777).toBe(0o600);
      expect(statSync(dir).mode & 0o777).toBe(0o700);
    }
    const text = readFileSync(path, 'utf8');
    expect(text).not.toContain('sk_secret');
    expect(JSON.parse(text)).toEqual({
      version: 1,
      keys: { [key]: { quota: { limit: 60, remaining: 57, resetAt: T0 + 42_000, seenAt: T0 }, gateUntil: T0 + 1000, leases: {} } },
    });
    expect(readdirSync(dir)).toEqual(['rate-state.json']);
    expect((await s.get(key))?.quota?.remaining).toBe(57);
  });

  it('a second store on the same file (another process) sees the changes', async () => {
    await store().update('k', (st) => void (st.gateUntil = T0 + 5000));
    expect((await store().get('k'))?.gateUntil).toBe(T0 + 5000);
  });

  it('does not rewrite the file when nothing changed', async () => {
    const s = store();
    await s.update('k', (st) => void (st.gateUntil = 7));
    const before = statSync(rateStatePath(dir)).ino;
    await s.update('k', () => undefined);
    expect(statSync(rateStatePath(dir)).ino).toBe(before);
  });

  it.each([
    ['not JSON', '{"version":1,"keys":{'],
    ['wrong version', '{"version":99,"keys":{}}'],
    ['wrong shape', '[1,2,3]'],
    ['empty', ''],
  ])('a corrupt file (%s) is ignored with a debug warning and overwritten', async (_name, content) => {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(rateStatePath(dir), content);
    const debug: string[] = [];
    const s = store(new FakeClock(T0), debug);
    expect(await s.get('k')).toBeUndefined();
    await s.update('k', (st) => void (st.gateUntil = 1));
    expect(JSON.parse(readFileSync(rateStatePath(dir), 'utf8')).keys.k.gateUntil).toBe(1);
    expect(debug.join('\n')).toMatch(/ignoring corrupt rate-limit state .*rate-state\.json/);
  });

  it('drops malformed entries and keeps good ones', async () => {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(
      rateStatePath(dir),
      JSON.stringify({ version: 1, keys: { bad: 'x', good: { gateUntil: 5, leases: { a: 'no', b: T0 + 1 }, quota: { limit: 'x' } } } }),
    );
    const s = store();
    expect(await s.get('bad')).toBeUndefined();
    expect(await s.get('good')).toEqual({ gateUntil: 5, leases: { b: T0 + 1 } });
  });

  it('forgets keys untouched for a week', async () => {
    const clock = new FakeClock(T0);
    const s = store(clock);
    await s.update('old', (st) => void (st.quota = { limit: 5, remaining: 1, resetAt: T0, seenAt: T0 }));
    clock.advance(8 * 24 * 3600 * 1000);
    await s.update('new', (st) => void (st.gateUntil = 1));
    expect(await s.get('old')).toBeUndefined();
    expect(await s.get('new')).toBeDefined();
  });

  it('when the file cannot be replaced, the change runs once and is kept in memory', async () => {
    // A folder where the file should be: the lock works, the rename fails.
    mkdirSync(join(rateStatePath(dir), 'x'), { recursive: true });
    const debug: string[] = [];
    const s = store(new FakeClock(T0), debug);
    let runs = 0;
    const value = await s.update('k', (st) => {
      runs++;
      st.gateUntil = 11;
      return 'done';
    });
    expect(value).toBe('done');
    expect(runs).toBe(1);
    expect((await s.get('k'))?.gateUntil).toBe(11);
    expect(debug.join('\n')).toMatch(/stays in this process/);
    expect(readdirSync(dir).sort()).toEqual(['rate-state.json']);
  });

  it('stamp() changes when anyone writes the file, and only then (a stat, no read)', async () => {
    const a = store();
    const b = store();
    expect(a.stamp()).toBe('none');
    await a.update('k', (st) => void (st.gateUntil = 1));
    const first = a.stamp();
    expect(first).not.toBe('none');
    expect(b.stamp()).toBe(first);
    await b.update('k', () => undefined); // nothing changed: not rewritten
    expect(a.stamp()).toBe(first);
    await b.update('k', (st) => void (st.gateUntil = 2));
    expect(a.stamp()).not.toBe(first);
  });

  it('when the folder cannot be created, state stays in memory for this process', async () => {
    writeFileSync(join(tmp.dir, 'file'), 'x');
    const debug: string[] = [];
    const s = new FileRateStateStore(join(tmp.dir, 'file', 'petstore', 'rate-state.json'), { clock: new FakeClock(T0), debug: (l) => debug.push(l) });
    await s.update('k', (st) => void (st.gateUntil = 9));
    expect((await s.get('k'))?.gateUntil).toBe(9);
    expect(debug.join('\n')).toMatch(/stays in this process/);
  });
});

describe('lock file', () => {
  const lockPath = () => `${rateStatePath(dir)}.lock`;

  it('waits while another live process holds the lock, then proceeds', async () => {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const clock = new FakeClock(T0);
    writeFileSync(lockPath(), `${process.ppid} ${hostname()} ${T0}\n`);
    const s = store(clock);
    let done = false;
    const p = s.update('k', (st) => void (st.gateUntil = 1)).then(() => (done = true));
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    expect(done).toBe(false);
    unlinkSync(lockPath()); // the holder releases it
    await p;
    expect(done).toBe(true);
    expect(existsSync(lockPath())).toBe(false);
  });

  it('breaks a lock left by a dead process at once', async () => {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const { stdout } = await run(process.execPath, ['-e', 'console.log(process.pid)']);
    const deadPid = Number(stdout.trim());
    writeFileSync(lockPath(), `${deadPid} ${hostname()} ${T0}\n`);
    const clock = new FakeClock(T0);
    const debug: string[] = [];
    await store(clock, debug).update('k', (st) => void (st.gateUntil = 1));
    expect(clock.now()).toBe(T0);
    expect(debug.join('\n')).toMatch(/breaking stale lock/);
  });

  it('a wait for a held lock stopped by the signal (Ctrl-C): the change is kept in memory, nothing thrown', async () => {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(lockPath(), `${process.ppid} ${hostname()} ${T0}\n`);
    const clock = new FakeClock(T0);
    const controller = new AbortController();
    const s = new FileRateStateStore(rateStatePath(dir), { clock, signal: controller.signal });
    const p = s.update('k', (st) => void (st.gateUntil = 7));
    await new Promise((r) => setImmediate(r));
    controller.abort();
    await p;
    expect((await s.get('k'))?.gateUntil).toBe(7);
    expect(s.stamp()).toBe('memory');
    expect(readFileSync(lockPath(), 'utf8')).toBe(`${process.ppid} ${hostname()} ${T0}\n`);
  });

  it('gives up after lockTimeoutMs (--timeout) with one line naming the lock file', async () => {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(lockPath(), `${process.ppid} ${hostname()} ${T0}\n`);
    const clock = new FakeClock(T0);
    const s = new FileRateStateStore(rateStatePath(dir), { clock, lockTimeoutMs: 1000 });
    await expect(s.update('k', (st) => void (st.gateUntil = 7))).rejects.toThrow(`timed out after 1.0 s waiting for the lock ${lockPath()}`);
    expect(clock.now()).toBe(T0 + 1000);
  });

  it('breaks a lock held longer than 5 s (another host, a hung process)', async () => {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(lockPath(), `1 some-other-host ${T0}\n`);
    const clock = new FakeClock(T0);
    await store(clock).update('k', (st) => void (st.gateUntil = 1));
    expect(clock.now()).toBeGreaterThan(T0 + 5000);
    expect(clock.now()).toBeLessThan(T0 + 5100);
  });

  it.each<[string, (path: string) => void]>([
    ['', () => {}],
    [', after a garbage lock', (p) => writeFileSync(p, 'garbage')],
    [', after a directory lock', (p) => mkdirSync(p)],
  ])('serialises read-modify-write across real processes: no lost updates%s', async (_what, make) => {
    const bundle = join(tmp.dir, 'rate-state.mjs');
    await bundleForWorker(new URL('../../../src/ratelimit/rate-state.ts', import.meta.url).pathname, bundle);
    const script = join(tmp.dir, 'worker.mjs');
    writeFileSync(
      script,
      `import { FileRateStateStore } from ${JSON.stringify(bundle)};
       const clock = { now: () => Date.now(), sleep: (ms) => new Promise((r) => setTimeout(r, ms)) };
       const s = new FileRateStateStore(process.argv[2], { clock });
       for (let i = 0; i < 40; i++) {
         await s.update('k', (st) => { st.gateUntil += 1; st.leases['p' + process.pid] = st.gateUntil; });
         await new Promise((r) => setImmediate(r));
       }`,
    );
    const path = rateStatePath(dir);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    make(`${path}.lock`);
    await Promise.all(Array.from({ length: 6 }, () => run(process.execPath, [script, path])));
    const state = await store().get('k');
    expect(state?.gateUntil).toBe(240);
    expect(Object.keys(state?.leases ?? {})).toHaveLength(6);
    expect(readdirSync(dir).sort()).toEqual(['rate-state.json']);
  });
});

describe('limiters in two "processes" through the file', () => {
  it('a gate closed by one is honoured by the other', async () => {
    const clock = new FakeClock(T0);
    const a = new RateLimiter({ clock, key: 'k', store: store(clock) });
    const b = new RateLimiter({ clock, key: 'k', store: store(clock) });
    const pa = await a.acquire();
    await pa.settle({ quota: { limit: 5, remaining: 0, resetAt: T0 + 3000, seenAt: T0 }, gateUntil: T0 + 3000 });
    const waits: number[] = [];
    const pb = await b.acquire({ onWait: (w) => void waits.push(w.ms) });
    expect(waits).toEqual([3000]);
    expect(clock.now()).toBe(T0 + 3000);
    expect(pb.probe).toBe(true);
    await pb.settle();
  });

  it('reservations in the file keep the sum in flight within remaining', async () => {
    const clock = new FakeClock(T0);
    const a = new RateLimiter({ clock, key: 'k', store: store(clock) });
    const b = new RateLimiter({ clock, key: 'k', store: store(clock), pollMs: 50 });
    const probe = await a.acquire();
    await probe.settle({ quota: { limit: 5, remaining: 2, resetAt: T0 + 10_000, seenAt: T0 } });
    await a.acquire();
    await b.acquire();
    // Two in flight, two remaining: a third must wait for the window (never settled here).
    const waits: string[] = [];
    const third = Promise.resolve(b.acquire({ maxWaitMs: 1000, onWait: (w) => void waits.push(w.reason) })).catch((e: Error) => e.message);
    expect(await third).toMatch(/minute limit reached \(0\/5 left\).*longer than --max-wait 1s/);
  });
});
