// Soak (npm run test:slow): the built CLI against the sandbox with a tiny quota and a short window, in
// real time: many one-at-a-time commands, and eight processes sharing the key's state file.
import { describe, expect, it } from 'vitest';
import { spawnCli, type CliResult } from '../helpers/cli.js';
import { assertNoEarlyRetry, QUOTA_LINE, setup } from '../helpers/ratelimit-setup.js';

// The two long runs use their own sandboxes and config folders, so they run side by side.
// Window lengths: the sandbox ends a window at the first whole second after open + length, and the CLI
// sends its next request just after a reset, so a 500 ms window lasts about 1 s and a 2 s one 2-3 s.
// The sequential run uses 3 requests per 2 s window so that 3 one-at-a-time CLI starts fit in one even on
// a loaded machine, where a start can take 500 ms (else a window could lapse before it is used up, and no
// wait would be announced); a run that starts while the last answer left 0 must announce its wait.
describe.concurrent('shared quota', () => {
  it('sequential: 12 `pets list` calls at 3 per 2 s window all succeed, none inside a Retry-After window, zero bans; the quota line matches the headers', async () => {
    const s = await setup(3, 2000);
    try {
      const results: CliResult[] = [];
      const startedAt: number[] = [];
      for (let i = 0; i < 12; i++) {
        startedAt.push(Date.now());
        const r = await s.cli(['pets', 'list', '--verbose', '-o', 'json']);
        expect(r.exitCode, r.stderr).toBe(0);
        results.push(r);
      }
      const reqs = s.sandbox.requests();
      expect(reqs.filter((r) => r.status === 200)).toHaveLength(12);
      assertNoEarlyRetry(s.sandbox);
      // Pacing, not provoking: the CLI waited for the reset instead of sending into a full window.
      expect(s.sandbox.stats().count429).toBe(0);
      expect(reqs).toHaveLength(12);
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
      // Waits were announced: by every run that started at least a second before the reset of an answer
      // that left 0 (the CLI knew it had to wait), and by at least one run.
      const WAIT_LINE = /rate limit reached \(0\/3 left\); waiting \d+s for the window to reset/;
      results.forEach((r, i) => {
        const before = reqs[i - 1];
        if (
          before &&
          before.responseHeaders['x-ratelimit-remaining'] === '0' &&
          startedAt[i]! < Number(before.responseHeaders['x-ratelimit-reset']) * 1000 - 1000
        ) {
          expect(r.stderr, `run ${i + 1} started in a used-up window`).toMatch(WAIT_LINE);
        }
      });
      expect(results.some((r) => WAIT_LINE.test(r.stderr))).toBe(true);
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
