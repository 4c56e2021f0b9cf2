// --limiter / PETSTORE_LIMITER (docs/rate-limits.md, "A shared limiter (Redis)"): the flag's checks, a Redis that is
// not there (one warning, local pacing), and a small fleet on separate config folders sharing one
// budget in a real redis-server: zero 429s. The long runs (a bigger fleet, Redis stopped mid-run):
// test/slow/shared-limiter-fleet.test.ts.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../helpers/sandbox.js';
import { spawnCli, tempDir } from '../helpers/cli.js';
import { E2E_KEY, e2e, expectNoKey, type E2E } from '../helpers/e2e.js';
import { freePort, hasRedisServer, startRedis, type RedisHandle } from '../helpers/redis.js';
import { seedRecords, writeNdjson } from '../helpers/seeding.js';
import { selfSignedCert, haveOpenssl } from '../helpers/tls-cert.js';
import { missingTool } from '../helpers/tools.js';

describe('--limiter without Redis', () => {
  let t: E2E;
  beforeAll(async () => {
    t = await e2e();
  });
  afterAll(() => t.close());

  it.each([
    ['--limiter', 'http://127.0.0.1:6379'],
    ['--limiter', 'redis://'],
    ['--limiter', 'localhost:6379'],
    ['--limiter', 'redis://127.0.0.1:6379/x'],
  ])('%s %s: one usage line, exit 2, nothing sent', async (flag, value) => {
    const before = t.sb.stats().requests;
    const r = await t.cli([flag, value, 'pets', 'list']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/^error: invalid --limiter ".*": must be redis:\/\/HOST\[:PORT\]\[\/DB\] or rediss:\/\/HOST\[:PORT\]\[\/DB\]\n/);
    expect(t.sb.stats().requests).toBe(before);
  });

  it('a password is never echoed, and never taken from the command line', async () => {
    const before = t.sb.stats().requests;
    const onFlag = await t.cli(['--limiter', 'redis://:hunter2pw@127.0.0.1:6379/0', 'pets', 'list']);
    expect(onFlag.exitCode).toBe(2);
    expect(onFlag.stderr).toBe(
      'error: --limiter carries a password, and a command line is visible to other users of this machine: set PETSTORE_LIMITER instead\n',
    );
    const invalid = await t.cli(['pets', 'list'], { env: { PETSTORE_LIMITER: 'http://user:hunter2pw@127.0.0.1:6379' } });
    expect(invalid.exitCode).toBe(2);
    expect(invalid.stderr).toMatch(/^error: invalid PETSTORE_LIMITER "http:\/\/\*\*\*@127\.0\.0\.1:6379": must be/);
    for (const r of [onFlag, invalid]) expect(r.stderr).not.toContain('hunter2');
    expect(t.sb.stats().requests).toBe(before);
  });

  it('PETSTORE_LIMITER is checked as the flag is; empty means unset', async () => {
    const bad = await t.cli(['pets', 'list'], { env: { PETSTORE_LIMITER: 'mysql://db' } });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/invalid PETSTORE_LIMITER "mysql:\/\/db"/);
    const empty = await t.cli(['pets', 'list'], { env: { PETSTORE_LIMITER: '' } });
    expect(empty.exitCode, empty.stderr).toBe(0);
  });

  it('a Redis nobody listens on: one warning line, the command completes on local pacing', async () => {
    const port = await freePort();
    const started = Date.now();
    const r = await t.cli(['pets', 'list', '-o', 'json'], { env: { PETSTORE_LIMITER: `redis://:secretpw@127.0.0.1:${port}/0` } });
    expect(r.exitCode, r.stderr).toBe(0);
    const warnings = r.stderr.split('\n').filter((l) => l.startsWith('warning:'));
    expect(warnings).toEqual([
      expect.stringMatching(
        new RegExp(`^warning: shared limiter redis://127\\.0\\.0\\.1:${port}/0 unavailable \\(.*\\); pacing from this process's own view of the quota$`),
      ),
    ]);
    expect(r.stderr).not.toContain('secretpw');
    expect(Date.now() - started).toBeLessThan(1500);
    expectNoKey(r);
  });
});

describe.skipIf(missingTool('redis-server', hasRedisServer()))('--limiter with a real redis-server', () => {
  let redis: RedisHandle;
  const tmp = tempDir('petstore-limiter-');
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.stop();
    tmp.cleanup();
  });

  it('4 `pets add --file` processes, separate config folders, one key: zero 429s, each record once', async () => {
    // 8 requests per 500 ms window; 16 creates need 2 windows at least.
    const sb = await startSandbox({ keys: [E2E_KEY], perMinute: 8, windowMs: 500, perDay: 1_000_000, ban: true });
    try {
      const runs = [0, 1, 2, 3].map((p) => {
        const file = writeNdjson(join(tmp.dir, `fleet-${p}.ndjson`), seedRecords(`f${p}`, 4));
        return spawnCli(['--limiter', redis.url, 'pets', 'add', '--file', file, '--concurrency', '4'], {
          configDir: join(tmp.dir, `machine-${p}`),
          env: { PETSTORE_BASE_URL: sb.baseUrl, PETSTORE_API_KEY: E2E_KEY, PETSTORE_ENV: 'staging' },
          timeoutMs: 30_000,
        });
      });
      const results = await Promise.all(runs);
      for (const r of results) {
        expect(r.exitCode, String(r.stderr)).toBe(0);
        expect(String(r.stderr)).not.toMatch(/warning|rate limited/);
      }
      const names = sb
        .pets()
        .map((p) => p.name)
        .sort();
      expect(names).toEqual([0, 1, 2, 3].flatMap((p) => seedRecords(`f${p}`, 4).map((r) => r.name)).sort());
      const stats = sb.stats();
      expect(stats.count429).toBe(0);
      expect(stats.count403bans).toBe(0);
      expect(stats.byStatus[201]).toBe(16);
    } finally {
      await sb.close();
    }
  }, 30_000);

  it("the fleet's budget used up: a process in another folder ends with exit 6 when the reset is past --max-wait, sending nothing", async () => {
    const sb = await startSandbox({ keys: [E2E_KEY], perMinute: 2, windowMs: 20_000, perDay: 1_000_000, ban: true });
    try {
      const run = (p: number, extra: string[] = []) =>
        spawnCli(['--limiter', redis.url, ...extra, 'pets', 'list', '-o', 'json'], {
          configDir: join(tmp.dir, `budget-${p}`),
          env: { PETSTORE_BASE_URL: sb.baseUrl, PETSTORE_API_KEY: E2E_KEY },
        });
      for (const p of [1, 2]) expect((await run(p)).exitCode).toBe(0);
      const r = await run(3, ['--max-wait', '1']);
      expect(r.exitCode, String(r.stderr)).toBe(6);
      expect(String(r.stderr)).toMatch(/^error: minute limit reached \(0\/2 left\): waiting for the minute window would take \d+s, longer than --max-wait 1s/);
      expect(sb.stats().requests).toBe(2);
    } finally {
      await sb.close();
    }
  });

  it('a Redis with a password (requirepass): the right one shares the budget; a wrong one is one warning that never shows it', async () => {
    const locked = await startRedis({ password: 'sesame-pw-42' });
    const t = await e2e({ perMinute: 3, windowMs: 500 });
    try {
      const ok = await t.cli(['pets', 'list', '-o', 'json'], { env: { PETSTORE_LIMITER: locked.url } });
      expect(ok.exitCode, ok.stderr).toBe(0);
      expect(ok.stderr).not.toContain('warning');
      const { Redis } = await import('ioredis');
      const client = new Redis(locked.url);
      try {
        expect((await client.keys('petstore:limiter:fleet:*')).length).toBeGreaterThan(0);
      } finally {
        client.disconnect();
      }
      const wrong = await t.cli(['pets', 'list', '-o', 'json'], { env: { PETSTORE_LIMITER: locked.url.replace('sesame-pw-42', 'wrong-pw-17') } });
      expect(wrong.exitCode, wrong.stderr).toBe(0);
      expect(wrong.stderr.split('\n').filter((l) => l.startsWith('warning:'))).toEqual([
        expect.stringMatching(/^warning: shared limiter redis:\/\/127\.0\.0\.1:\d+\/0 unavailable \(.*\); pacing from this process's own view of the quota$/),
      ]);
      for (const r of [ok, wrong]) {
        expect(r.stderr).not.toContain('sesame');
        expect(r.stderr).not.toContain('wrong-pw');
      }
    } finally {
      await t.close();
      await locked.stop();
    }
  });

  it.skipIf(missingTool('openssl', haveOpenssl()))(
    'rediss:// (TLS, with a password): works when the certificate is trusted; an untrusted one is one warning and local pacing',
    async () => {
      const cert = selfSignedCert();
      const tls = await startRedis({ tls: cert, password: 'tls-pw-9' });
      const t = await e2e({ perMinute: 3, windowMs: 500 });
      try {
        expect(tls.url).toMatch(/^rediss:/);
        const trusted = await t.cli(['pets', 'list', '-o', 'json'], { env: { PETSTORE_LIMITER: tls.url, NODE_EXTRA_CA_CERTS: cert.certFile } });
        expect(trusted.exitCode, trusted.stderr).toBe(0);
        expect(trusted.stderr).not.toContain('warning');
        const untrusted = await t.cli(['pets', 'list', '-o', 'json'], { env: { PETSTORE_LIMITER: tls.url } });
        expect(untrusted.exitCode, untrusted.stderr).toBe(0);
        expect(untrusted.stderr.split('\n').filter((l) => l.startsWith('warning:'))).toEqual([
          expect.stringMatching(/^warning: shared limiter rediss:\/\/127\.0\.0\.1:\d+\/0 unavailable \(.*\); pacing from/),
        ]);
        for (const r of [trusted, untrusted]) expect(r.stderr).not.toContain('tls-pw');
      } finally {
        await t.close();
        await tls.stop();
        cert.remove();
      }
    },
  );

  it('PETSTORE_LIMITER works as the flag; the key is not in Redis', async () => {
    const t = await e2e({ perMinute: 3, windowMs: 500 });
    try {
      const r = await t.cli(['pets', 'list', '-o', 'json'], { env: { PETSTORE_LIMITER: redis.url } });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stderr).not.toContain('warning');
      const { Redis } = await import('ioredis');
      const client = new Redis(redis.url);
      try {
        const keys = await client.keys('*');
        expect(keys.some((k) => k.startsWith('petstore:limiter:fleet:'))).toBe(true);
        for (const k of keys) expect(k).not.toContain(E2E_KEY);
        for (const k of keys) expect((await client.type(k)) === 'string' ? await client.get(k) : '').not.toContain(E2E_KEY);
      } finally {
        client.disconnect();
      }
    } finally {
      await t.close();
    }
  });
});
