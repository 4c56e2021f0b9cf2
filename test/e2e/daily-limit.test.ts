// The daily limit named when it is the one that binds (issue #15): the interface gives one set of
// X-RateLimit-* headers, for the most constrained window, without saying which; a reset further ahead than
// a minute window's can be is the daily one (src/ratelimit/fleet.ts, quotaWindow). Needs `npm run build` first.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { runCli, tempDir } from '../helpers/cli.js';

let sandbox: SandboxHandle;
let config: { dir: string; cleanup: () => void };
let env: Record<string, string>;

beforeAll(async () => {
  // Plenty per minute, 3 a day (the day window keeps its default 24 h).
  sandbox = await startSandbox({ perMinute: 100, perDay: 3, ban: true });
  config = tempDir('petstore-e2e-daily-');
  env = { PETSTORE_BASE_URL: sandbox.baseUrl, PETSTORE_API_KEY: sandbox.keys[0]! };
});
afterAll(async () => {
  await sandbox.close();
  config.cleanup();
});

const cli = (args: string[]) => runCli(args, { env, configDir: config.dir });

describe('the daily limit, when it binds', () => {
  it('`petstore quota` says so: "window": "day" in JSON, a note on stderr with the table', async () => {
    const json = await cli(['quota', '-o', 'json']);
    expect(json.exitCode, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ limit: 3, remaining: 2, window: 'day' });
    expect(json.stderr).toMatch(/note: the daily limit is the one that binds: 2\/3 left today/);
    const cached = await cli(['quota', '--cached', '-o', 'json']);
    expect(JSON.parse(cached.stdout)).toMatchObject({ limit: 3, window: 'day' });
  });

  it('seeding past it stops with exit 6, naming the daily limit and when it resets; no ban', async () => {
    const file = join(config.dir, 'pets.ndjson');
    writeFileSync(file, Array.from({ length: 4 }, (_, i) => `{"name":"d${i}","categoryId":${i + 1}}\n`).join(''));
    const r = await cli(['pets', 'add', '--file', file, '--max-wait', '60', '--yes']);
    expect(r.exitCode, r.stderr).toBe(6);
    expect(r.stderr).toMatch(
      /daily limit reached \(0\/3 left\): waiting for the daily window would take \d+s, longer than --max-wait 60s; the daily limit resets at/,
    );
    expect(sandbox.stats().created).toBe(2);
    expect(sandbox.stats().bansIssued).toBe(0);
  });

  it('a minute window is not called daily', async () => {
    const sb = await startSandbox({ perMinute: 2, windowMs: 60_000 });
    const dir = tempDir('petstore-e2e-daily-');
    try {
      const r = await runCli(['quota', '-o', 'json'], { env: { PETSTORE_BASE_URL: sb.baseUrl, PETSTORE_API_KEY: sb.keys[0]! }, configDir: dir.dir });
      expect(JSON.parse(r.stdout)).toMatchObject({ limit: 2, window: 'minute' });
      expect(r.stderr).not.toMatch(/daily/);
    } finally {
      await sb.close();
      dir.cleanup();
    }
  });
});

describe('a used-up daily limit that an earlier command saw', () => {
  it('holds the next command back without a request, naming whose figures they are; petstore quota asks the server, and a restarted server with a new plan lets commands through again', async () => {
    const dir = tempDir('petstore-e2e-daily-');
    const first = await startSandbox({ perMinute: 100, perDay: 1, ban: true });
    let second: SandboxHandle | undefined;
    try {
      const key = first.keys[0]!;
      const run = (args: string[]) => runCli(args, { env: { PETSTORE_BASE_URL: first.baseUrl, PETSTORE_API_KEY: key }, configDir: dir.dir });
      expect((await run(['pets', 'list'])).exitCode).toBe(0);
      const held = await run(['pets', 'list']);
      expect(held.exitCode, held.stderr).toBe(6);
      expect(held.stderr).toMatch(/^error: daily limit reached \(0\/1 left, as the server said at \d\d:\d\d:\d\d\): waiting for the daily window/m);
      expect(held.stderr).toMatch(/or run "petstore quota": it asks the server whether that still holds/);
      expect(first.stats().requests).toBe(1);
      // What petstore kept after that answer: the day used up, no gate (the restart below starts from it).
      const kept = readFileSync(join(dir.dir, 'petstore', 'rate-state.json'));

      // Still true: petstore quota asks once, the server answers 429, and nothing follows it (no ban).
      const asked = await run(['quota']);
      expect(asked.exitCode, asked.stderr).toBe(6);
      expect(first.stats().requests).toBe(2);
      expect(first.stats().count429).toBe(1);
      expect((await run(['pets', 'list'])).exitCode).toBe(6);
      expect((await run(['quota'])).exitCode).toBe(6);
      expect(first.stats().requests).toBe(2);
      expect(first.stats().bansIssued).toBe(0);

      // The server comes back on the same address with a new plan: its daily window resets sooner than
      // the one petstore saw, and the minute window binds. (After the 429 above the key's gate holds for
      // the old day: a user whose last answer was the 0 left, not a 429, is in another config folder.)
      const port = Number(new URL(first.baseUrl).port);
      await first.close();
      second = await startSandbox({ port, keys: [key], perMinute: 100, perDay: 1000, dayWindowMs: 3_600_000, ban: true });
      const fresh = tempDir('petstore-e2e-daily-');
      try {
        const again = (args: string[]) => runCli(args, { env: { PETSTORE_BASE_URL: second!.baseUrl, PETSTORE_API_KEY: key }, configDir: fresh.dir });
        mkdirSync(join(fresh.dir, 'petstore'), { recursive: true, mode: 0o700 });
        writeFileSync(join(fresh.dir, 'petstore', 'rate-state.json'), kept, { mode: 0o600 });
        expect((await again(['pets', 'list'])).exitCode).toBe(6);
        expect(second.stats().requests).toBe(0);
        const quota = await again(['quota', '-o', 'json']);
        expect(quota.exitCode, quota.stderr).toBe(0);
        expect(JSON.parse(quota.stdout)).toMatchObject({ limit: 100, remaining: 99, window: 'minute' });
        const listed = await again(['pets', 'list']);
        expect(listed.exitCode, listed.stderr).toBe(0);
        expect(second.stats().requests).toBe(2);
        expect(second.stats().count429).toBe(0);
      } finally {
        fresh.cleanup();
      }
    } finally {
      await second?.close();
      await first.close().catch(() => {});
      dir.cleanup();
    }
  });
});
