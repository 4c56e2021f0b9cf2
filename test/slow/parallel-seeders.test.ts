// Soak (npm run test:slow): 8 parallel bulk seeders sharing one key stay within the
// server's limit together (zero bans) and create every record exactly once, over
// 200 records and at least 10 rate-limit windows of real time (~10 s).
// The behaviour in short: test/e2e/ratelimit.test.ts (parallel CLIs sharing a quota)
// and test/e2e/bulk.test.ts (one seeder under a binding limit).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseJson, toInt64 } from '../../src/json/int64.js';
import { startSandbox } from '../../src/sandbox/server.js';
import { spawnCli, tempDir, type CliResult } from '../helpers/cli.js';

const tmp = tempDir('petstore-seeders-');
afterAll(() => tmp.cleanup());

async function all(runs: ReturnType<typeof spawnCli>[]): Promise<CliResult[]> {
  const done = await Promise.all(runs);
  return done.map((r) => ({ stdout: String(r.stdout), stderr: String(r.stderr), exitCode: r.exitCode ?? -1 }));
}

describe('parallel processes, one config folder', () => {
  it('8 parallel `pets add --file` seeders, one key, a binding limit: 200 pets created exactly once, zero bans', async () => {
    // 20 requests per 500 ms window: 200 creates need at least 10 windows, so the limit binds throughout.
    const sb = await startSandbox({ perMinute: 20, windowMs: 500, perDay: 1_000_000, ban: true });
    const key = sb.keys[0]!;
    const home = join(tmp.dir, 'seeders');
    try {
      const files = Array.from({ length: 8 }, (_, p) => {
        const path = join(tmp.dir, `seed-${p}.ndjson`);
        writeFileSync(path, Array.from({ length: 25 }, (_, i) => `{"name":"p${p}-r${i}","categoryId":${9007199254740993n + BigInt(i)}}\n`).join(''));
        return path;
      });
      const started = Date.now();
      const results = await all(
        files.map((file, p) =>
          spawnCli(['pets', 'add', '--file', file, '--results', join(tmp.dir, `results-${p}.ndjson`), '--concurrency', '4'], {
            configDir: home,
            env: { PETSTORE_BASE_URL: sb.baseUrl, PETSTORE_API_KEY: key, PETSTORE_ENV: 'staging' },
            timeoutMs: 90_000,
          }),
        ),
      );
      const elapsed = Date.now() - started;
      for (const r of results) {
        expect(r.exitCode, r.stderr).toBe(0);
        expect(r.stderr).toMatch(/created 25, failed 0, unknown 0, skipped 0, invalid 0/);
      }
      // Exactly once: 200 distinct pets, each record of each file.
      const names = sb
        .pets()
        .map((p) => p.name)
        .sort();
      const expected = files.flatMap((_, p) => Array.from({ length: 25 }, (_, i) => `p${p}-r${i}`)).sort();
      expect(names).toEqual(expected);
      expect(sb.stats().created).toBe(200);
      // Every journal says created, with an id (its outcome lines; the others are its header, the in-flight marks and the footer); 200 distinct ids in all.
      const ids = new Set<string>();
      for (let p = 0; p < 8; p++) {
        const lines = readFileSync(join(tmp.dir, `results-${p}.ndjson`), 'utf8')
          .trim()
          .split('\n')
          .map((l) => parseJson(l) as Record<string, unknown>)
          .filter((l) => typeof l.line === 'number' && l.status !== 'sending');
        expect(lines).toHaveLength(25);
        expect(lines.every((l) => l.status === 'created' && toInt64((l.pet as { id?: unknown } | undefined)?.id) !== undefined)).toBe(true);
        for (const l of lines) ids.add(String((l.pet as { id: bigint }).id));
      }
      expect(ids.size).toBe(200);
      // Within the limit together: no ban ever, whatever 429s were honoured.
      const stats = sb.stats();
      expect(stats.count403bans).toBe(0);
      expect(stats.bansIssued).toBe(0);
      expect(stats.byStatus[201]).toBe(200);
      console.info(`8 seeders: ${elapsed} ms, ${stats.requests} requests, ${stats.count429} answered 429, 0 bans`);
    } finally {
      await sb.close();
    }
  }, 90_000);
});
