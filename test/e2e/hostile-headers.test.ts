// The hostile-header matrix (issue #15, item 4): odd X-RateLimit-Reset and Retry-After values from a
// local test server. Each gives one stderr line and its documented exit code, never a warning from
// Node, and leaves nothing in rate-state.json that locks the key out: the next command against a
// healthy server works.

import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, tempDir, type CliResult } from '../helpers/cli.js';
import { json, startFaultServer, type Fault, type FaultServer } from '../helpers/fault-server.js';

const KEY = 'sk_hostile_headers_key_7c2b';
const DAY_MS = 24 * 3600 * 1000;
const LIST = ['pets', 'list'];
const ERROR_BODY = { code: 'rate_limited', message: 'Too many requests', status: 429 };

const servers: FaultServer[] = [];
const dirs: Array<() => void> = [];
afterAll(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  for (const cleanup of dirs.splice(0)) cleanup();
});

const healthy = (): Fault =>
  json(200, [], {
    'x-ratelimit-limit': '60',
    'x-ratelimit-remaining': '59',
    'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 30),
  });

/** A server whose first answer is `first`, then healthy ones; and one config folder for every run. */
async function setup(first: Fault): Promise<{ s: FaultServer; dir: string; cli: (args: string[]) => Promise<CliResult>; state: () => string }> {
  const s = await startFaultServer((req) => (req.seq === 1 ? first : healthy()));
  servers.push(s);
  const cfg = tempDir('petstore-hostile-');
  dirs.push(cfg.cleanup);
  const cli = (args: string[]) => runCli(args, { configDir: cfg.dir, env: { PETSTORE_BASE_URL: s.baseUrl, PETSTORE_API_KEY: KEY } });
  const state = () => {
    try {
      return readFileSync(join(cfg.dir, 'petstore', 'rate-state.json'), 'utf8');
    } catch {
      return '{}';
    }
  };
  return { s, dir: cfg.dir, cli, state };
}

/** Nothing in the state file closes the key, or ends its window, more than a day from now. */
function expectNoLockout(stateText: string): void {
  const state = JSON.parse(stateText) as { keys?: Record<string, { quota?: { resetAt: number }; gateUntil?: number }> };
  const limit = Date.now() + DAY_MS + 60_000;
  for (const entry of Object.values(state.keys ?? {})) {
    expect(entry.gateUntil ?? 0).toBeLessThan(limit);
    expect(entry.quota?.resetAt ?? 0).toBeLessThan(limit);
  }
}

function expectNoNodeWarning(r: CliResult): void {
  expect(r.stderr).not.toMatch(/\(node:\d+\)|Warning|Invalid time value|NaN/);
}

const nowS = () => Math.floor(Date.now() / 1000);

describe.concurrent('X-RateLimit-Reset: the heuristic (delta seconds, epoch seconds, epoch milliseconds)', () => {
  it.each([
    ['delta seconds', () => '30'],
    ['epoch seconds', () => String(nowS() + 30)],
    ['epoch milliseconds', () => String(Date.now() + 30_000)],
  ])('%s: read as a reset about 30 s away', async (_form, value) => {
    const { cli, state } = await setup(json(200, [], { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '5', 'x-ratelimit-reset': value() }));
    const r = await cli([...LIST, '--verbose']);
    expect(r.exitCode).toBe(0);
    expectNoNodeWarning(r);
    // The quota line (--verbose) is the one line, with a sane reset.
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    const m = /resets in (\d+)s/.exec(r.stderr);
    expect(m, r.stderr).not.toBeNull();
    expect(Number(m![1])).toBeGreaterThanOrEqual(25);
    expect(Number(m![1])).toBeLessThanOrEqual(32);
    const q = Object.values((JSON.parse(state()) as { keys: Record<string, { quota: { resetAt: number } }> }).keys)[0]!.quota;
    expect(q.resetAt).toBeGreaterThan(Date.now());
    expect(q.resetAt).toBeLessThan(Date.now() + 60_000);
  });
});

describe.concurrent('X-RateLimit-Reset: absurd or unreadable values are ignored (a --debug note), never a lockout', () => {
  it.each([
    ['huge', '99999999999999999'],
    ['epoch milliseconds far in the future', String(Date.now() + 30 * DAY_MS)],
    ['delta seconds beyond a day', '172800'],
    ['epoch seconds long past', '1000000000'],
    ['negative', '-5'],
    ['garbage', 'soon'],
    ['a fraction', '12.5'],
  ])('%s (%s), with Remaining 0', async (_what, value) => {
    const first = json(200, [], { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': value });
    const { s, cli, state } = await setup(first);
    const r = await cli([...LIST, '--debug']);
    expect(r.exitCode).toBe(0);
    expectNoNodeWarning(r);
    const notes = r.stderr.split('\n').filter((l) => l.includes('X-RateLimit-Reset') && l.includes('ignored'));
    expect(notes, r.stderr).toHaveLength(1);
    expect(notes[0]).not.toContain(KEY);
    expectNoLockout(state());

    // The next command works at once: no wait announced, no exit 6.
    const next = await cli(LIST);
    expect(next).toMatchObject({ exitCode: 0, stderr: '' });
    expect(s.requests()).toHaveLength(2);
    expectNoLockout(state());
  });
});

describe.concurrent('Retry-After beyond --max-wait: exit 6 naming the value, no warning, no lockout', () => {
  it.each([
    ['huge delta seconds', '99999999999'],
    ['a date far in the future', 'Fri, 31 Dec 9999 23:59:59 GMT'],
    ['more than a day and its hour of slack', '90001'],
  ])('%s (%s)', async (_what, value) => {
    const { s, cli, state } = await setup(json(429, ERROR_BODY, { 'retry-after': value }));
    const r = await cli(LIST);
    expect(r.exitCode).toBe(6);
    expectNoNodeWarning(r);
    const lines = r.stderr.trim().split('\n');
    expect(lines, r.stderr).toHaveLength(1);
    expect(lines[0]).toContain(`(Retry-After: ${value})`);
    expect(lines[0]).toContain('more than a day');
    // It gave up at once: no retry.
    expect(s.requests()).toHaveLength(1);
    expectNoLockout(state());

    // A value beyond a day is not believed: the key is closed for a backoff (a second at most) only.
    const next = await cli(LIST);
    expect(next.exitCode).toBe(0);
    expectNoNodeWarning(next);
    expect(s.requests()).toHaveLength(2);
  });

  it('a believable Retry-After longer than --max-wait: exit 6 naming it, and the key stays closed for that long (at most a day)', async () => {
    const { s, cli, state } = await setup(json(429, ERROR_BODY, { 'retry-after': '3600' }));
    const r = await cli(LIST);
    expect(r.exitCode).toBe(6);
    expectNoNodeWarning(r);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('the server asked to wait 3600s before the next request (Retry-After: 3600), longer than --max-wait 120s');
    expect(r.stderr).toContain('the limit resets at');
    expect(s.requests()).toHaveLength(1);
    expectNoLockout(state());
    // The server's word is honoured: the next command does not knock (exit 6, nothing sent).
    const next = await cli(LIST);
    expect(next.exitCode).toBe(6);
    expect(s.requests()).toHaveLength(1);
  });

  it('garbage Retry-After falls back to backoff; with --max-retries 0 it is one line and exit 6', async () => {
    const { s, cli, state } = await setup(json(429, ERROR_BODY, { 'retry-after': 'later, maybe' }));
    const r = await cli([...LIST, '--max-retries', '0']);
    expect(r.exitCode).toBe(6);
    expectNoNodeWarning(r);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(s.requests()).toHaveLength(1);
    expectNoLockout(state());
    const next = await cli(LIST);
    expect(next.exitCode).toBe(0);
    expect(s.requests()).toHaveLength(2);
  });
});

describe.concurrent('--max-wait and --timeout: at most a day', () => {
  it.each([
    ['--max-wait', '86401'],
    ['--max-wait', '10000000000'],
    ['--max-wait', '1e10'],
    ['--timeout', '86401'],
    ['--timeout', '99999999999'],
  ])('%s %s: one usage line, exit 2, nothing sent', async (flag, value) => {
    const { s, cli } = await setup(healthy());
    const r = await cli([...LIST, flag, value]);
    expect(r.exitCode).toBe(2);
    expectNoNodeWarning(r);
    expect(r.stderr).toMatch(new RegExp(`^error: invalid ${flag} "${value}": must be `));
    expect(r.stderr.trim().split('\n')[0]).toContain(flag);
    expect(s.requests()).toHaveLength(0);
  });

  it('a day is accepted for both', async () => {
    const { s, cli } = await setup(healthy());
    const r = await cli([...LIST, '--max-wait', '86400', '--timeout', '86400']);
    expect(r).toMatchObject({ exitCode: 0, stderr: '' });
    expect(s.requests()).toHaveLength(1);
  });
});

describe('a state file holding absurd values (written by an older version) locks nothing out', () => {
  it('a gate and a window reset years ahead are ignored (a --debug note) and the command is sent', async () => {
    const { s, dir, cli } = await setup(healthy());
    const folder = join(dir, 'petstore');
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    const key = `production:${createHash('sha256').update(`${s.baseUrl}\n${KEY}`).digest('hex').slice(0, 16)}`;
    const far = Date.now() + 3650 * DAY_MS;
    const quota = { limit: 60, remaining: 0, resetAt: far, seenAt: Date.now() };
    writeFileSync(join(folder, 'rate-state.json'), JSON.stringify({ version: 1, keys: { [key]: { quota, gateUntil: far, leases: {} } } }), { mode: 0o600 });
    const r = await cli([...LIST, '--debug']);
    expect(r.exitCode, r.stderr).toBe(0);
    expectNoNodeWarning(r);
    expect(r.stderr).toContain('more than a day ahead) is ignored');
    expect(s.requests()).toHaveLength(1);
  });
  it('`quota --cached` over such a state file: no cached quota (exit 5), never "Invalid time value"', async () => {
    const { s, dir, cli } = await setup(healthy());
    const folder = join(dir, 'petstore');
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    const key = `production:${createHash('sha256').update(`${s.baseUrl}\n${KEY}`).digest('hex').slice(0, 16)}`;
    const quota = { limit: 60, remaining: 0, resetAt: 9e15, seenAt: Date.now() };
    writeFileSync(join(folder, 'rate-state.json'), JSON.stringify({ version: 1, keys: { [key]: { quota, leases: {} } } }), { mode: 0o600 });
    const r = await cli(['quota', '--cached']);
    expect(r.exitCode, r.stderr).toBe(5);
    expect(r.stderr).toMatch(/^error: no quota seen yet for environment "production"/);
    expect(r.stderr).not.toMatch(/Invalid time value|NaN/);
    expect(s.requests()).toHaveLength(0);
  });
});

describe('`petstore quota` against headers it cannot use', () => {
  it('names the value it could not use, not "no rate-limit headers"', async () => {
    const { cli } = await setup(json(200, [], { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '7', 'x-ratelimit-reset': 'soon' }));
    const r = await cli(['quota']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/^error: the server's rate-limit headers cannot be used: X-RateLimit-Reset "soon" is not a whole number of seconds/);
  });
});
