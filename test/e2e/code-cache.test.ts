// bin/petstore runs the CLI from a V8 code cache of its own in $XDG_CACHE_HOME/petstore (bench/README.md):
// made after a first run that ended well, private, ignored when it cannot be read or made, never in the way.
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
import { useTinyTmpfs } from '../helpers/tiny-fs.js';

const tmp = tempDir('petstore-code-cache-');
afterAll(() => tmp.cleanup());

let n = 0;
function folders() {
  const home = join(tmp.dir, `case-${++n}`);
  mkdirSync(home);
  const env = { XDG_CACHE_HOME: join(home, 'cache'), PETSTORE_CONFIG_DIR: join(home, 'config') };
  const caches = () => readdirSync(join(home, 'cache', 'petstore')).filter((f) => f.endsWith('.bin'));
  return { home, env, dir: join(home, 'cache', 'petstore'), caches };
}

describe('the code cache', () => {
  it('a first run writes one private file for its command; the next runs read it and print the same', async () => {
    const f = folders();
    const first = await runCli(['env', 'list'], { env: f.env });
    expect(first.exitCode).toBe(0);
    const [file] = f.caches();
    expect(file).toMatch(new RegExp(`^main-${process.version}-${process.arch}-\\d+-\\d+-env\\.bin$`));
    expect(statSync(f.dir).mode & 0o777).toBe(0o700);
    const path = join(f.dir, file!);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const written = readFileSync(path);
    const again = await runCli(['env', 'list'], { env: f.env });
    expect(again).toEqual(first);
    expect(readFileSync(path).equals(written)).toBe(true);
    await runCli(['pets', '--help'], { env: f.env });
    expect(f.caches().map((c) => c.replace(/.*-/, ''))).toEqual(['env.bin', 'pets.bin']);
  });

  it('a run that fails writes none', async () => {
    const f = folders();
    const r = await runCli(['env', 'show', 'nowhere'], { env: f.env });
    expect(r.exitCode).toBe(2);
    expect(f.caches()).toEqual([]);
  });

  it('a damaged cache is not used (V8 would die on it): the same output, and the file is written anew', async () => {
    const f = folders();
    const good = await runCli(['env', 'list'], { env: f.env });
    const path = join(f.dir, f.caches()[0]!);
    const whole = (file: Buffer) => file.subarray(0, file.length / 2).equals(file.subarray(file.length / 2));
    expect(whole(readFileSync(path))).toBe(true);
    for (const at of [0.01, 0.25, 0.6]) {
      const damaged = readFileSync(path);
      damaged.fill(0xff, Math.floor(damaged.length * at), Math.floor(damaged.length * at) + 4);
      writeFileSync(path, damaged);
      expect(await runCli(['env', 'list'], { env: f.env })).toEqual(good);
      expect(whole(readFileSync(path))).toBe(true);
    }
    writeFileSync(path, 'junk');
    expect(await runCli(['env', 'list'], { env: f.env })).toEqual(good);
  });

  it('the caches of another build go when this one writes its own', async () => {
    const f = folders();
    await runCli(['env', 'list'], { env: f.env });
    const stale = join(f.dir, 'main-v0.0.0-x64-1-2-env.bin');
    writeFileSync(stale, 'old');
    await runCli(['pets', '--help'], { env: f.env });
    expect(f.caches().some((c) => c.startsWith('main-v0.0.0'))).toBe(false);
  });

  it('PETSTORE_NO_COMPILE_CACHE: no cache at all', async () => {
    const f = folders();
    const r = await runCli(['env', 'list'], { env: { ...f.env, PETSTORE_NO_COMPILE_CACHE: '1' } });
    expect(r.exitCode).toBe(0);
    expect(() => readdirSync(f.dir)).toThrow(/ENOENT/);
  });

  it.runIf(process.platform === 'linux')('a cache folder that cannot be made (/proc/self): the command works, silently, without it', async () => {
    const f = folders();
    const r = await runCli(['env', 'list'], { env: { ...f.env, XDG_CACHE_HOME: '/proc/self/petstore' }, timeoutMs: 15_000 });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^current\tname/);
  });
});

describe('the code cache on a full disk', () => {
  const tiny = useTinyTmpfs(() => join(tmp.dir, 'tiny-cache'));

  it('a cache that does not fit: the command works, silently, and leaves no half-written file', async (ctx) => {
    if (tiny.skipped(ctx)) return;
    const env = { XDG_CACHE_HOME: tiny.dir, PETSTORE_CONFIG_DIR: join(tmp.dir, 'tiny-config') };
    const r = await runCli(['env', 'list'], { env });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe('current: production (from built-in default)\n');
    expect(readdirSync(join(tiny.dir, 'petstore')).filter((f) => f.startsWith('main-'))).toEqual([]);
  });
});
