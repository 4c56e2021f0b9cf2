// The rate-limit e2e and soak tests' shared setup: a sandbox with a tiny quota and a short window, a
// config folder, and the check that no request reached the server inside a Retry-After it announced.
import { expect } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { runCli, tempDir, type CliResult } from './cli.js';

export interface Setup {
  sandbox: SandboxHandle;
  key: string;
  config: { dir: string; cleanup: () => void };
  cli(args: string[], extra?: { configDir?: string }): Promise<CliResult>;
}

export async function setup(perMinute: number, windowMs: number): Promise<Setup> {
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
export function assertNoEarlyRetry(sandbox: SandboxHandle): void {
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

export const QUOTA_LINE = /quota: (\d+)\/(\d+) left, resets in (\d+)s/;
