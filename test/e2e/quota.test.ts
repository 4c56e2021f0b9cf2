// `petstore quota` and the quota line, against the sandbox. Needs `npm run build` first
// (the in-process tests at the end do not).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { runInProcess } from '../helpers/inprocess.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { join } from 'node:path';
import { readFileSync, statSync } from 'node:fs';

let sandbox: SandboxHandle;
let config: { dir: string; cleanup: () => void };
let env: Record<string, string>;

beforeAll(async () => {
  sandbox = await startSandbox({ perMinute: 7, windowMs: 60_000 });
  config = tempDir('petstore-e2e-quota-');
  env = { PETSTORE_BASE_URL: sandbox.baseUrl, PETSTORE_API_KEY: sandbox.keys[0]! };
});
afterAll(async () => {
  await sandbox.close();
  config.cleanup();
});

const cli = (args: string[], configDir = config.dir) => runCli(args, { env, configDir });

describe('petstore quota', () => {
  it('--cached before any request: exit 5 with a hint, and no request', async () => {
    const fresh = tempDir();
    try {
      const r = await cli(['quota', '--cached'], fresh.dir);
      expect(r.exitCode).toBe(5);
      expect(r.stderr).toMatch(/no quota seen yet for environment "production"/);
      expect(r.stderr).toMatch(/petstore quota/);
      expect(sandbox.requests()).toHaveLength(0);
    } finally {
      fresh.cleanup();
    }
  });

  it('-o json: one cheap request (GET /pets?limit=1), values from its headers', async () => {
    const before = Date.now();
    const r = await cli(['quota', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const reqs = sandbox.requests();
    const last = reqs[reqs.length - 1]!;
    expect(last.method).toBe('GET');
    expect(last.url).toBe('/v1/pets?limit=1');
    const q = JSON.parse(r.stdout) as Record<string, unknown>;
    const reset = Number(last.responseHeaders['x-ratelimit-reset']);
    expect(q).toMatchObject({
      env: 'production',
      limit: Number(last.responseHeaders['x-ratelimit-limit']),
      remaining: Number(last.responseHeaders['x-ratelimit-remaining']),
      reset: new Date(reset * 1000).toISOString(),
      resetEpoch: reset,
      source: 'live',
    });
    expect(q.limit).toBe(7);
    expect(q.remaining).toBe(6);
    expect(q.resetInSeconds).toBeGreaterThan(0);
    expect(q.resetInSeconds).toBeLessThanOrEqual(61);
    expect(Date.parse(q.seenAt as string)).toBeGreaterThanOrEqual(before - 1000);
  });

  it('--cached: the last-seen values, no request', async () => {
    const n = sandbox.requests().length;
    const r = await cli(['quota', '--cached', '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ env: 'production', limit: 7, remaining: 6, source: 'cached' });
    expect(sandbox.requests()).toHaveLength(n);
  });

  it('table output to a pipe: a header line and one tab-separated row (env, limit, remaining, reset, resetInSeconds)', async () => {
    const r = await cli(['quota']);
    expect(r.exitCode, r.stderr).toBe(0);
    const [head, row, ...rest] = r.stdout.trimEnd().split('\n');
    expect(head).toBe('env\tlimit\tremaining\treset\tresetInSeconds');
    expect(rest).toEqual([]);
    const cells = (row ?? '').split('\t');
    expect(cells).toHaveLength(5);
    expect(cells.slice(0, 3)).toEqual(['production', '7', '5']);
    expect(cells[3]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Number(cells[4])).toBeGreaterThan(0);
  });

  it('rejects an unknown format before sending (exit 2)', async () => {
    const n = sandbox.requests().length;
    const r = await cli(['quota', '-o', 'xml']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/invalid --output "xml": must be one of table, json, ndjson, csv/);
    expect(sandbox.requests()).toHaveLength(n);
  });

  it('without a key: exit 4', async () => {
    const r = await runCli(['quota'], { env: { PETSTORE_BASE_URL: sandbox.baseUrl }, configDir: config.dir });
    expect(r.exitCode).toBe(4);
  });

  it('the state file holds a hash of the key, never the key, and is 0600', async () => {
    const path = join(config.dir, 'petstore', 'rate-state.json');
    const text = readFileSync(path, 'utf8');
    expect(text).not.toContain(sandbox.keys[0]!);
    expect(Object.keys(JSON.parse(text).keys)).toEqual([expect.stringMatching(/^production:[0-9a-f]{16}$/)]);
    if (process.platform !== 'win32') expect(statSync(path).mode & 0o777).toBe(0o600);
  });
});

describe('the quota line (in process)', () => {
  it('on a terminal: only with --verbose while plenty is left (dim, numbers from the headers); --quiet hides it; a pipe gets none without --verbose', async () => {
    const dir = tempDir();
    try {
      const e = { ...env, PETSTORE_CONFIG_DIR: join(dir.dir, 'petstore') };
      const tty = await runInProcess(['pets', 'list', '-o', 'json'], { env: e, stderrTTY: true });
      expect(tty.exitCode, tty.stderr).toBe(0);
      expect(Number(sandbox.requests().at(-1)!.responseHeaders['x-ratelimit-remaining'])).toBeGreaterThanOrEqual(7 * 0.2);
      expect(tty.stderr).not.toMatch(/quota:/);
      const ttyVerbose = await runInProcess(['pets', 'list', '-o', 'json', '--verbose'], { env: e, stderrTTY: true });
      const remaining = sandbox.requests().at(-1)!.responseHeaders['x-ratelimit-remaining'];
      expect(ttyVerbose.stderr).toMatch(new RegExp(`\\u001b\\[2mquota: ${remaining}/7 left, resets in \\d+s\\u001b\\[22m`));
      const pipe = await runInProcess(['pets', 'list', '-o', 'json'], { env: e });
      expect(pipe.stderr).not.toMatch(/quota:/);
      const verbose = await runInProcess(['pets', 'list', '-o', 'json', '--verbose'], { env: e });
      expect(verbose.stderr).toMatch(/^quota: \d+\/7 left, resets in \d+s$/m);
      const quiet = await runInProcess(['pets', 'list', '-o', 'json', '--quiet'], { env: e, stderrTTY: true });
      expect(quiet.stderr).toBe('');
    } finally {
      dir.cleanup();
    }
  });

  it('after a command on a terminal once under 20% is left: yellow under 10%, red at 0; a wait on a terminal shows a spinner and leaves its announcement', async () => {
    // A 1 s window (it lasts to the whole second after that: 1-2 s) holds the 11 in-process calls with room to spare.
    const sb = await startSandbox({ perMinute: 11, windowMs: 1000 });
    const dir = tempDir();
    try {
      const e = { PETSTORE_BASE_URL: sb.baseUrl, PETSTORE_API_KEY: sb.keys[0]!, PETSTORE_CONFIG_DIR: join(dir.dir, 'petstore') };
      const lines: string[] = [];
      for (let i = 0; i < 12; i++) {
        const r = await runInProcess(['quota', '-o', 'json'], { env: e, stderrTTY: true });
        expect(r.exitCode, r.stderr).toBe(0);
        lines.push(r.stderr);
      }
      // 11 per window: shown from under 20% left (the 9th leaves 2); the 10th leaves 1 (< 10%), the 11th 0;
      // the 12th waited for the next window, where plenty is left again.
      expect(lines[7]).not.toMatch(/quota:/);
      expect(lines[8]).toMatch(/\u001b\[2mquota: 2\/11 left/);
      expect(lines[9]).toMatch(/\u001b\[33mquota: 1\/11 left/);
      expect(lines[10]).toMatch(/\u001b\[31mquota: 0\/11 left/);
      expect(lines[11]).toMatch(/rate limit reached \(0\/11 left\); waiting \d+s for the window to reset/);
      expect(lines[11]).not.toMatch(/quota:/);
      expect(sb.stats().count429).toBe(0);
    } finally {
      await sb.close();
      dir.cleanup();
    }
  });
});
