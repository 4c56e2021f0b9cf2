// The daily limit named when it is the one that binds (issue #15): the interface gives one set of
// X-RateLimit-* headers, for the most constrained window, without saying which; a reset further ahead than
// a minute window's can be is the daily one (src/ratelimit/fleet.ts, quotaWindow). Needs `npm run build` first.
import { writeFileSync } from 'node:fs';
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
