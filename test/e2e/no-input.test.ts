import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliResult } from '../helpers/cli.js';
import { E2E_KEY, expectNoKey, e2e, type E2E } from '../helpers/e2e.js';
import { hasScript, runOnPty } from '../helpers/pty.js';

// Scripts and CI (docs/scripting.md, "Scripts and CI"): --no-input or a stdin that is not a terminal never prompts;
// where a prompt would be needed the command fails with exit 2 naming the flag or variable to use instead.
// --quiet leaves only errors on stderr.

let t: E2E;
beforeAll(async () => {
  t = await e2e();
  t.sb.seed([{ name: 'Rex', categoryId: 1, status: 'available' }]);
});
afterAll(() => t.close());

const ptyEnv = () => ({ PETSTORE_CONFIG_DIR: t.configDir, PETSTORE_BASE_URL: t.sb.baseUrl, PETSTORE_API_KEY: E2E_KEY, HOME: t.dir });

function petsFile(count: number): string {
  const file = join(t.dir, `pets-${count}.ndjson`);
  writeFileSync(file, `${Array.from({ length: count }, (_, i) => JSON.stringify({ name: `Bulk${i}`, categoryId: 2 })).join('\n')}\n`);
  return file;
}

describe('never prompting', () => {
  it('auth login with an empty, non-terminal stdin: exit 2 naming the pipe and PETSTORE_API_KEY', async () => {
    t.sb.clearRequests();
    const r = await t.cli(['auth', 'login'], { key: null });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toBe(
      'error: no API key given: stdin is not a terminal, so there is no prompt, and it was empty; ' +
        'pipe the key (echo "$KEY" | petstore auth login) or set PETSTORE_API_KEY\n',
    );
    expect(t.sb.requests()).toHaveLength(0);
  });

  it.runIf(hasScript)('auth login --no-input on a terminal: exit 2 naming the pipe and PETSTORE_API_KEY', async () => {
    const r = await runOnPty(['auth', 'login', '--no-input'], { env: { ...ptyEnv(), PETSTORE_API_KEY: undefined } });
    expectNoKey(r);
    expect(r.exitCode).toBe(2);
    expect(r.output).toContain('--no-input: not prompting for the API key');
    expect(r.output).toContain('echo "$KEY" | petstore auth login');
    expect(r.output).toContain('PETSTORE_API_KEY');
    expect(r.output).not.toContain('API key for');
  });

  it('bulk add to production from a non-terminal: exit 2 naming --yes, nothing sent; --yes sends', async () => {
    const file = petsFile(2);
    t.sb.clearRequests();
    const refused = await t.cli(['pets', 'add', '--file', file]);
    expectNoKey(refused);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain('without confirmation: pass --yes');
    expect(t.sb.requests()).toHaveLength(0);

    const sent = await t.cli(['pets', 'add', '--file', file, '--yes']);
    expectNoKey(sent);
    expect(sent.exitCode).toBe(0);
    expect(t.sb.requests().filter((q) => q.method === 'POST')).toHaveLength(2);
  });

  it.runIf(hasScript)('bulk add to production on a terminal asks; with --no-input it fails naming --yes instead', async () => {
    const file = petsFile(1);
    t.sb.clearRequests();
    const refused = await runOnPty(['--no-input', 'pets', 'add', '--file', file], { env: ptyEnv() });
    expectNoKey(refused);
    expect(refused.exitCode).toBe(2);
    expect(refused.output).toContain('pass --yes');
    expect(refused.output).not.toContain('[y/N]');
    expect(t.sb.requests()).toHaveLength(0);

    const asked = await runOnPty(['pets', 'add', '--file', file], { env: ptyEnv(), steps: [{ waitFor: '[y/N]', type: 'n\r' }] });
    expectNoKey(asked);
    expect(asked.exitCode).toBe(2);
    expect(asked.output).toContain('Create 1 pet in the production environment');
    expect(asked.output).toContain('not confirmed; nothing was sent');
    expect(t.sb.requests()).toHaveLength(0);
  });
});

describe('--quiet', () => {
  const ok = (r: CliResult) => {
    expectNoKey(r);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe('');
  };

  it('pets list/add/get print only data; the deprecation warning and the quota line (even with --verbose) are gone', async () => {
    const loud = await t.cli(['pets', 'get', '1', '--verbose']);
    expectNoKey(loud);
    expect(loud.stderr).toMatch(/deprecat/i);
    expect(loud.stderr).toMatch(/^quota: /m);

    const list = await t.cli(['-q', '--verbose', 'pets', 'list']);
    ok(list);
    expect(list.stdout).toContain('Rex');
    const add = await t.cli(['--quiet', '--verbose', 'pets', 'add', '--name', 'Quiet', '--category-id', '3', '-o', 'json']);
    ok(add);
    expect(JSON.parse(add.stdout)).toMatchObject({ name: 'Quiet', categoryId: 3 });
    const get = await t.cli(['pets', 'get', '1', '--quiet', '--verbose']);
    ok(get);
    expect(get.stdout).toContain('Rex');
  });

  it('also silences retry announcements and the loose-permission warning', async () => {
    t.sb.failNext({ status: 503, count: 1 });
    ok(await t.cli(['-q', 'pets', 'list']));

    const dir = join(t.dir, 'loose');
    mkdirSync(join(dir, 'petstore'), { recursive: true });
    writeFileSync(join(dir, 'petstore', 'config.json'), '{}\n');
    chmodSync(join(dir, 'petstore'), 0o755);
    chmodSync(join(dir, 'petstore', 'config.json'), 0o644);
    const env = { PETSTORE_CONFIG_DIR: join(dir, 'petstore') };
    const warned = await t.cli(['pets', 'list'], { env });
    expect(warned.stderr).toContain('warning: ');
    ok(await t.cli(['-q', 'pets', 'list'], { env }));
  });

  it('errors are still shown', async () => {
    const r = await t.cli(['-q', 'pets', 'get', '987654']);
    expectNoKey(r);
    expect(r.exitCode).toBe(5);
    expect(r.stderr).toMatch(/^error: /);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    const usage = await t.cli(['-q', 'pets', 'add', '--name', 'X']);
    expect(usage.exitCode).toBe(2);
    expect(usage.stderr).toMatch(/^error: .*--category-id/);
  });

  it.runIf(hasScript)('on a terminal: no quota line, no deprecation warning; only the table', async () => {
    const loud = await runOnPty(['--verbose', 'pets', 'get', '1'], { env: ptyEnv() });
    expectNoKey(loud);
    expect(loud.exitCode).toBe(0);
    expect(loud.output).toMatch(/quota: /);
    const r = await runOnPty(['-q', '--verbose', 'pets', 'get', '1'], { env: ptyEnv() });
    expectNoKey(r);
    expect(r.exitCode).toBe(0);
    expect(r.output).toContain('Rex');
    expect(r.output).not.toMatch(/quota: |deprecat/i);
  });
});
