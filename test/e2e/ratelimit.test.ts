// End to end: the built CLI against the sandbox with a tiny quota and a short window.
// Needs `npm run build` first.
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnCli, tempDir } from '../helpers/cli.js';
import { assertNoEarlyRetry, setup, type Setup } from '../helpers/ratelimit-setup.js';

describe('giving up', () => {
  let s: Setup;
  beforeAll(async () => {
    s = await setup(2, 10_000);
  });
  afterAll(async () => {
    await s.sandbox.close();
    s.config.cleanup();
  });

  it('exit 6 without sending when the known quota would need a wait longer than --max-wait', async () => {
    s.sandbox.resetRateLimits();
    s.sandbox.clearRequests();
    expect((await s.cli(['pets', 'list'])).exitCode).toBe(0);
    expect((await s.cli(['pets', 'list'])).exitCode).toBe(0);
    const r = await s.cli(['pets', 'list', '--max-wait', '1']);
    expect(r.exitCode).toBe(6);
    // One line: which limit, when it resets, what to do (advice, not a command to run).
    expect(r.stderr).toMatch(
      /^error: minute limit reached \(0\/2 left\): waiting for the minute window would take \d+s, longer than --max-wait 1s; the minute limit resets at \d\d:\d\d:\d\d \(in \d+s\); try again after that time, or raise --max-wait\n$/,
    );
    expect(s.sandbox.requests()).toHaveLength(2);

    // A seeding run that gives up says the same, how far it got, and the command that continues it.
    const dir = tempDir('petstore-e2e-rl-seed-');
    try {
      const file = `${dir.dir}/pets.csv`;
      const results = `${dir.dir}/results.ndjson`;
      writeFileSync(file, 'name,categoryId\nRex,1\nTom,2\n');
      const seed = await s.cli(['pets', 'add', '--file', file, '--results', results, '--max-wait', '1', '--yes']);
      expect(seed.exitCode).toBe(6);
      const lines = seed.stderr.split('\n');
      expect(lines[1]).toMatch(
        new RegExp(
          `^error: minute limit reached \\(0/2 left\\): waiting for the minute window would take \\d+s, longer than --max-wait 1s; the minute limit resets at \\d\\d:\\d\\d:\\d\\d \\(in \\d+s\\); stopped after 0 of 2 records; try again after that time, or raise --max-wait; run: petstore pets add --file ${file} --results ${results} --resume --concurrency 4 --yes$`,
        ),
      );
      expect(lines.slice(2)).toEqual(['']);
    } finally {
      dir.cleanup();
    }
  });

  it('exit 6 when the server asks for longer than --max-wait (a real 429), and no ban', async () => {
    s.sandbox.resetRateLimits();
    s.sandbox.clearRequests();
    const used = tempDir('petstore-e2e-rl-used-');
    const fresh = tempDir('petstore-e2e-rl-fresh-');
    try {
      // Another machine (no shared state file) used up the window.
      for (let i = 0; i < 2; i++) expect((await s.cli(['pets', 'list'], { configDir: used.dir })).exitCode).toBe(0);
      const before429 = s.sandbox.stats().count429;
      const r = await s.cli(['pets', 'list', '--max-wait', '2'], { configDir: fresh.dir });
      expect(r.exitCode).toBe(6);
      expect(r.stderr).toMatch(
        /^error: rate limited by the minute limit: the server asked to wait \d+s before the next request \(Retry-After: \d+\), longer than --max-wait 2s; the minute limit resets at \d\d:\d\d:\d\d \(in \d+s\); try again after that time, or raise --max-wait\n$/,
      );
      expect(s.sandbox.stats().count429 - before429).toBe(1);
      // The gate it recorded stops the next process from sending into the Retry-After window.
      const again = await s.cli(['pets', 'list', '--max-wait', '2'], { configDir: fresh.dir });
      expect(again.exitCode).toBe(6);
      expect(s.sandbox.requests()).toHaveLength(3); // 2 used + the 429; nothing from the second try
      assertNoEarlyRetry(s.sandbox);
    } finally {
      used.cleanup();
      fresh.cleanup();
    }
  });

  it('--max-retries 0 with a 429: exit 6 at once', async () => {
    s.sandbox.resetRateLimits();
    const fresh = tempDir('petstore-e2e-rl-fresh-');
    try {
      s.sandbox.failNext({ status: 429, code: 'rate_limited', retryAfter: 1 });
      const r = await s.cli(['pets', 'list', '--max-retries', '0'], { configDir: fresh.dir });
      expect(r.exitCode).toBe(6);
      expect(r.stderr).toMatch(/retries are off with --max-retries 0/);
    } finally {
      fresh.cleanup();
    }
  });
});

describe('Ctrl-C during a rate-limit wait', () => {
  let s: Setup;
  beforeAll(async () => {
    s = await setup(1, 30_000);
  });
  afterAll(async () => {
    await s.sandbox.close();
    s.config.cleanup();
  });

  it('exits 130 without a stack trace and sends nothing more', async () => {
    expect((await s.cli(['pets', 'list'])).exitCode).toBe(0);
    const child = spawnCli(['pets', 'list'], {
      env: { PETSTORE_BASE_URL: s.sandbox.baseUrl, PETSTORE_API_KEY: s.key },
      configDir: s.config.dir,
    });
    let stderr = '';
    await new Promise<void>((resolve) => {
      child.stderr!.on('data', (c: Buffer) => {
        stderr += c.toString();
        if (/waiting \d+s/.test(stderr)) resolve();
      });
    });
    child.kill('SIGINT');
    const r = await child;
    expect(r.exitCode).toBe(130);
    expect(String(r.stderr)).not.toMatch(/\n\s+at /);
    expect(s.sandbox.requests()).toHaveLength(1);
  });
});
