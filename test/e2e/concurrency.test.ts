// Parallel petstore processes sharing one config folder: configuration writes
// are never lost or torn. (Parallel bulk seeders sharing one key under a binding
// limit: test/slow/parallel-seeders.test.ts; parallel CLIs sharing a quota: ratelimit.test.ts.)
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnCli, tempDir, type CliResult } from '../helpers/cli.js';

const tmp = tempDir('petstore-concurrency-');
afterAll(() => tmp.cleanup());

const posix = process.platform !== 'win32';
const mode = (path: string) => statSync(path).mode & 0o777;

async function all(runs: ReturnType<typeof spawnCli>[]): Promise<CliResult[]> {
  const done = await Promise.all(runs);
  return done.map((r) => ({ stdout: String(r.stdout), stderr: String(r.stderr), exitCode: r.exitCode ?? -1 }));
}

describe('parallel processes, one config folder', () => {
  it('16 parallel `env set`, then 16 parallel `auth login` / `env use`: a valid config holding every change', async () => {
    const home = join(tmp.dir, 'config-race');
    const dir = join(home, 'petstore');
    const names = Array.from({ length: 16 }, (_, i) => `e${i}`);
    const url = (i: number) => `http://127.0.0.1:${40000 + i}/v1`;
    const key = (i: number) => `sk_concurrent_key_${i}_${'x'.repeat(8)}`;

    const set = await all(names.map((n, i) => spawnCli(['env', 'set', n, url(i)], { configDir: home, timeoutMs: 60_000 })));
    for (const r of set) expect(r.exitCode, r.stderr).toBe(0);

    // Even environments get a key (stdin, no verification), odd ones become the default: all at once.
    const mixed = await all(
      names.map((n, i) =>
        i % 2 === 0
          ? spawnCli(['auth', 'login', '--env', n, '--no-verify'], { configDir: home, input: `${key(i)}\n`, timeoutMs: 60_000 })
          : spawnCli(['env', 'use', n], { configDir: home, timeoutMs: 60_000 }),
      ),
    );
    for (const r of mixed) expect(r.exitCode, r.stderr).toBe(0);

    const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as {
      currentEnv: string;
      envs: Record<string, { baseUrl?: string; apiKey?: string }>;
    };
    names.forEach((n, i) => {
      expect(config.envs[n]?.baseUrl, n).toBe(url(i));
      if (i % 2 === 0) expect(config.envs[n]?.apiKey, n).toBe(key(i));
      else expect(config.envs[n]?.apiKey, n).toBeUndefined();
    });
    expect(names.filter((_, i) => i % 2 === 1)).toContain(config.currentEnv);
    if (posix) {
      expect(mode(dir)).toBe(0o700);
      expect(mode(join(dir, 'config.json'))).toBe(0o600);
    }
    // No lock or temporary file left behind.
    expect(readdirSync(dir).filter((f) => f !== 'config.json' && f !== 'rate-state.json')).toEqual([]);
    // And the CLI reads it back.
    const list = await all([spawnCli(['env', 'list', '-o', 'json'], { configDir: home })]);
    expect(list[0]!.exitCode).toBe(0);
    expect((JSON.parse(list[0]!.stdout) as { name: string; current: boolean; keyStored: boolean }[]).filter((e) => e.keyStored)).toHaveLength(8);
  });
});
