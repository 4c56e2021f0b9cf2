// Bad keys stop before the network (issue #15, item 5): surrounding whitespace is trimmed wherever the
// key comes from; a key an HTTP header cannot carry is one usage line (exit 2) that names the problem
// and never the key, and the server receives nothing.

import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, tempDir, type CliResult } from '../helpers/cli.js';
import { json, startFaultServer, type FaultServer } from '../helpers/fault-server.js';

const GOOD = 'sk_live_trimmed_key_4f9a2c';

const servers: FaultServer[] = [];
const dirs: Array<() => void> = [];
afterAll(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  for (const cleanup of dirs.splice(0)) cleanup();
});

async function setup(): Promise<{ s: FaultServer; dir: string }> {
  const s = await startFaultServer(() => json(200, [], { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '59', 'x-ratelimit-reset': '30' }));
  servers.push(s);
  const cfg = tempDir('petstore-keys-');
  dirs.push(cfg.cleanup);
  return { s, dir: cfg.dir };
}

/** A config file with one environment "ci" on the server, holding `apiKey` as stored. */
function storeKey(dir: string, s: FaultServer, apiKey: string): void {
  const folder = join(dir, 'petstore');
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  chmodSync(folder, 0o700);
  const file = join(folder, 'config.json');
  writeFileSync(file, JSON.stringify({ currentEnv: 'ci', envs: { ci: { baseUrl: s.baseUrl, apiKey } } }), { mode: 0o600 });
}

/** No piece of the key (no 8 characters in a row of it, nor its last 4 as a mask shows them) in what the user saw. */
function expectNoPartOf(key: string, r: CliResult): void {
  const seen = r.stdout + r.stderr;
  for (let i = 0; i + 8 <= key.length; i++) expect(seen).not.toContain(key.slice(i, i + 8));
  expect(seen).not.toContain(key.slice(-4));
}

const BAD: Array<[string, string, RegExp]> = [
  ['an inner newline', 'sk_first_half_9a8b\nsk_second_half_7c6d', /line break/],
  ['an inner carriage return', 'sk_first_half_9a8b\rsk_second_half_7c6d', /line break/],
  ['a control character', 'sk_first_half_9a8b\u0001sk_second_half_7c6d', /control character/],
  ['an escape sequence', 'sk_first_half_9a8b\u001b[31msk_second_half_7c6d', /control character/],
  ['an inner space', 'sk_first_half_9a8b sk_second_half_7c6d', /space/],
  ['a character outside Latin-1', 'sk_first_half_9a8b\u043ask_second_half_7c6d', /outside Latin-1/],
  ['a non-ASCII Latin-1 character', 'sk_first_half_9a8b\u00e9sk_second_half_7c6d', /non-ASCII/],
];

describe.concurrent('keys with surrounding whitespace are trimmed', () => {
  it('PETSTORE_API_KEY with a trailing newline (from a file or echo) works and is sent trimmed', async () => {
    const { s, dir } = await setup();
    const r = await runCli(['pets', 'list'], { configDir: dir, env: { PETSTORE_BASE_URL: s.baseUrl, PETSTORE_API_KEY: `  ${GOOD}\n` } });
    expect(r).toMatchObject({ exitCode: 0, stderr: '' });
    expect(s.requests().map((q) => q.headers.authorization)).toEqual([`Bearer ${GOOD}`]);
  });

  it('a stored key with surrounding whitespace works and is sent trimmed', async () => {
    const { s, dir } = await setup();
    storeKey(dir, s, `\t${GOOD}\r\n`);
    const r = await runCli(['pets', 'list'], { configDir: dir });
    expect(r).toMatchObject({ exitCode: 0, stderr: '' });
    expect(s.requests().map((q) => q.headers.authorization)).toEqual([`Bearer ${GOOD}`]);
  });

  it('auth login from stdin with a trailing newline checks and stores the trimmed key', async () => {
    const { s, dir } = await setup();
    storeKey(dir, s, 'sk_old_key_to_replace_0000');
    const r = await runCli(['auth', 'login'], { configDir: dir, input: `${GOOD}\n` });
    expect(r.exitCode).toBe(0);
    expect(s.requests().map((q) => q.headers.authorization)).toEqual([`Bearer ${GOOD}`]);
    const stored = JSON.parse(readFileSync(join(dir, 'petstore', 'config.json'), 'utf8'));
    expect(stored.envs.ci.apiKey).toBe(GOOD);
  });

  it('a PETSTORE_API_KEY of only whitespace counts as unset: the stored key is used', async () => {
    const { s, dir } = await setup();
    storeKey(dir, s, GOOD);
    const r = await runCli(['pets', 'list'], { configDir: dir, env: { PETSTORE_API_KEY: ' \n' } });
    expect(r).toMatchObject({ exitCode: 0, stderr: '' });
    expect(s.requests().map((q) => q.headers.authorization)).toEqual([`Bearer ${GOOD}`]);
  });
});

describe.concurrent('keys a header cannot carry: one line, exit 2, nothing sent, never the key', () => {
  it.each(BAD)('PETSTORE_API_KEY with %s', async (_what, key, problem) => {
    const { s, dir } = await setup();
    const r = await runCli(['pets', 'list'], { configDir: dir, env: { PETSTORE_BASE_URL: s.baseUrl, PETSTORE_API_KEY: key } });
    expect(r.exitCode).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines, r.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(/^error: invalid API key from PETSTORE_API_KEY: /);
    expect(lines[0]).toMatch(problem);
    expectNoPartOf(key, r);
    expect(s.requests()).toHaveLength(0);
  });

  it.each(BAD)('the stored key with %s', async (_what, key, problem) => {
    const { s, dir } = await setup();
    storeKey(dir, s, key);
    const r = await runCli(['pets', 'add', '--name', 'Rex', '--category-id', '1'], { configDir: dir });
    expect(r.exitCode).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('invalid API key from the key stored for environment "ci"');
    expect(r.stderr).toMatch(problem);
    expectNoPartOf(key, r);
    expect(s.requests()).toHaveLength(0);
  });

  it.each(BAD)('auth login from stdin with %s', async (_what, key) => {
    const { s, dir } = await setup();
    storeKey(dir, s, GOOD);
    const r = await runCli(['auth', 'login'], { configDir: dir, input: `${key}\n` });
    expect(r.exitCode).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('invalid API key');
    expectNoPartOf(key, r);
    expect(s.requests()).toHaveLength(0);
    expect(JSON.parse(readFileSync(join(dir, 'petstore', 'config.json'), 'utf8')).envs.ci.apiKey).toBe(GOOD);
  });

  it('auth status and quota refuse it the same way (exit 2, nothing sent)', async () => {
    const { s, dir } = await setup();
    const key = BAD[0]![1];
    const env = { PETSTORE_BASE_URL: s.baseUrl, PETSTORE_API_KEY: key };
    storeKey(dir, s, GOOD);
    for (const args of [['auth', 'status'], ['quota'], ['api', '/pets']]) {
      const r = await runCli(args, { configDir: dir, env });
      expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toContain('invalid API key from PETSTORE_API_KEY: it contains a line break');
      expectNoPartOf(key, r);
    }
    expect(s.requests()).toHaveLength(0);
  });
});
