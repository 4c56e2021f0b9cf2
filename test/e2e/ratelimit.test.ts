// End to end: the built CLI against the sandbox with a tiny quota and a short window.
// Needs `npm run build` first.
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { runCli, spawnCli, tempDir, type CliResult } from '../helpers/cli.js';

interface Setup {
  sandbox: SandboxHandle;
  key: string;
  config: { dir: string; cleanup: () => void };
  cli(args: string[], extra?: { configDir?: string }): Promise<CliResult>;
}

async function setup(perMinute: number, windowMs: number): Promise<Setup> {
  const sandbox = await startSandbox({ perMinute, windowMs, ban: true });
  const key = sandbox.keys[0]!;
  const config = tempDir('petstore-e2e-rl-');
  const env = { PETSTORE_BASE_URL: sandbox.baseUrl, PETSTORE_API_KEY: key };
  return {
    sandbox,
    key,
    config,
    cli: (args, extra) => runCli(args, { env, configDir: extra?.configDir ?? config.dir, timeoutMs: 60_000 }),
  };
}

/** No request reached the server while a Retry-After it announced to the key was still running. */
function assertNoEarlyRetry(sandbox: SandboxHandle): void {
  const reqs = sandbox.requests();
  for (const r of reqs.filter((x) => x.status === 429)) {
    const resetAt = Number(r.responseHeaders['x-ratelimit-reset']) * 1000;
    const retryAfterEnd = r.time + Number(r.responseHeaders['retry-after']) * 1000;
    const early = reqs.filter((x) => x.seq > r.seq && (x.time < resetAt || x.time < retryAfterEnd - 1000));
    expect(early, `requests inside the Retry-After window of #${r.seq}`).toEqual([]);
  }
  expect(sandbox.stats().count403bans).toBe(0);
  expect(sandbox.stats().bansIssued).toBe(0);
}

const QUOTA_LINE = /quota: (\d+)\/(\d+) left, resets in (\d+)s/;

// The two long runs use their own sandboxes and config folders, so they run side by side.
// Window lengths: the sandbox ends a window at the first whole second after open + length, and the CLI
// sends its next request just after a reset, so a 500 ms window lasts about 1 s and a 1 s one about 2 s.
// The sequential run keeps 2 s windows so that 5 one-at-a-time CLI starts always fit in one, even on a
// loaded machine (else a window could lapse before it is used up, and no wait would be announced).
describe.concurrent('shared quota', () => {
  it('sequential: 20 `pets list` calls at 5 per 1 s window all succeed, none inside a Retry-After window, zero bans; the quota line matches the headers', async () => {
    const s = await setup(5, 1000);
    try {
      const results: CliResult[] = [];
      for (let i = 0; i < 20; i++) {
        const r = await s.cli(['pets', 'list', '--verbose', '-o', 'json']);
        expect(r.exitCode, r.stderr).toBe(0);
        results.push(r);
      }
      const reqs = s.sandbox.requests();
      expect(reqs.filter((r) => r.status === 200)).toHaveLength(20);
      assertNoEarlyRetry(s.sandbox);
      // Pacing, not provoking: the CLI waited for the reset instead of sending into a full window.
      expect(s.sandbox.stats().count429).toBe(0);
      expect(reqs).toHaveLength(20);
      // Each run's quota line shows the headers of its own (only) response.
      results.forEach((r, i) => {
        const m = QUOTA_LINE.exec(r.stderr);
        expect(m, r.stderr).not.toBeNull();
        const h = reqs[i]!.responseHeaders;
        expect(Number(m![1])).toBe(Number(h['x-ratelimit-remaining']));
        expect(Number(m![2])).toBe(Number(h['x-ratelimit-limit']));
        const resetIn = Number(h['x-ratelimit-reset']) * 1000 - reqs[i]!.time;
        expect(Number(m![3])).toBeGreaterThanOrEqual(Math.floor(resetIn / 1000) - 1);
        expect(Number(m![3])).toBeLessThanOrEqual(Math.ceil(resetIn / 1000));
      });
      // Waits were announced.
      expect(results.some((r) => /rate limit reached \(0\/5 left\); waiting \d+s for the window to reset/.test(r.stderr))).toBe(true);
    } finally {
      await s.sandbox.close();
      s.config.cleanup();
    }
  });

  it('parallel: 8 CLI processes (xargs -P 8 style), one key, 40 requests at 5 per 500 ms window: all succeed, zero bans', async () => {
    const s = await setup(5, 500);
    try {
      const env = { PETSTORE_BASE_URL: s.sandbox.baseUrl, PETSTORE_API_KEY: s.key };
      let started = 0;
      const results: CliResult[] = [];
      const worker = async () => {
        while (started < 40) {
          started++;
          const r = await spawnCli(['pets', 'list', '--limit', '1', '-o', 'json'], { env, configDir: s.config.dir, timeoutMs: 60_000 });
          results.push({ stdout: String(r.stdout), stderr: String(r.stderr), exitCode: r.exitCode ?? -1 });
        }
      };
      await Promise.all(Array.from({ length: 8 }, worker));
      expect(results).toHaveLength(40);
      for (const r of results) expect(r.exitCode, r.stderr).toBe(0);
      expect(s.sandbox.requests().filter((r) => r.status === 200)).toHaveLength(40);
      assertNoEarlyRetry(s.sandbox);
      // The processes reserve slots through the shared state file, so together they never overshoot.
      expect(s.sandbox.stats().count429).toBe(0);
    } finally {
      await s.sandbox.close();
      s.config.cleanup();
    }
  });
});

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
