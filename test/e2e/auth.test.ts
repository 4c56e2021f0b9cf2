import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { E2E_KEY, e2e, type E2E } from '../helpers/e2e.js';
import { hasScript, runOnPty } from '../helpers/pty.js';

let t: E2E;
beforeEach(async () => {
  t = await e2e();
});
afterEach(() => t.close());

const configFile = () => join(t.configDir, 'config.json');
const stored = () => (existsSync(configFile()) ? readFileSync(configFile(), 'utf8') : '');
/** auth commands against the sandbox, with the key only where a test gives it. */
const auth = (args: string[], input?: string, env: Record<string, string> = {}) =>
  t.cli(['auth', ...args], { key: null, env, ...(input !== undefined ? { input } : {}) });
const masked = `****${E2E_KEY.slice(-4)}`;

describe('petstore auth (built CLI against the sandbox)', () => {
  it('login reads the key from stdin, checks it with one GET /pets?limit=1, stores it 0600/0700, never prints it', async () => {
    const r = await auth(['login', '--insecure-storage'], `${E2E_KEY}\n`);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`Logged in to production (${t.sb.baseUrl}) with key ${masked}; the key is in ${configFile()} (mode 0600)\n`);
    const reqs = t.sb.requests();
    expect(reqs).toHaveLength(1);
    expect(reqs[0]).toMatchObject({ method: 'GET', path: '/v1/pets', query: { limit: '1' }, status: 200 });
    expect(reqs[0]!.headers.authorization).toBe(`Bearer ${E2E_KEY}`);
    expect(reqs[0]!.headers['user-agent']).toBe('petstore-cli/0.1.0');
    expect(JSON.parse(stored()).envs.production.apiKey).toBe(E2E_KEY);
    if (process.platform !== 'win32') {
      expect(statSync(configFile()).mode & 0o777).toBe(0o600);
      expect(statSync(t.configDir).mode & 0o777).toBe(0o700);
    }
    // The stored key is used by later commands.
    t.sb.clearRequests();
    const list = await t.cli(['pets', 'list'], { key: null });
    expect(list.exitCode).toBe(0);
    expect(t.sb.requests()[0]!.headers.authorization).toBe(`Bearer ${E2E_KEY}`);
  });

  it('login stores nothing on 401 and exits 4', async () => {
    const r = await auth(['login'], 'sk_wrong_key_000000000000');
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toContain('nothing was stored');
    expect(r.stderr).toContain('HTTP 401');
    expect(r.stderr).not.toContain('sk_wrong_key_000000000000');
    expect(stored()).not.toContain('sk_wrong');
  });

  it('login --no-verify sends nothing; empty input is exit 2', async () => {
    const r = await auth(['login', '--no-verify'], E2E_KEY);
    expect(r.exitCode).toBe(0);
    expect(t.sb.requests()).toHaveLength(0);
    const empty = await auth(['login'], '');
    expect(empty.exitCode).toBe(2);
    expect(empty.stderr).toContain('no API key given');
    const none = await t.cli(['auth', 'login'], { key: null }); // stdin is /dev/null
    expect(none.exitCode).toBe(2);
  });

  it('status shows source, masked key and the server verdict; exit 4 without a usable key', async () => {
    const none = await auth(['status']);
    expect(none.exitCode).toBe(4);
    expect(none.stderr).toContain('petstore auth login --env production');

    await auth(['login'], E2E_KEY);
    const ok = await auth(['status', '-o', 'json']);
    expect(ok.exitCode).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({
      env: 'production',
      baseUrl: t.sb.baseUrl,
      keySource: 'config',
      configFile: configFile(),
      key: masked,
      server: 'accepted',
    });

    const fromEnv = await auth(['status', '-o', 'json'], undefined, { PETSTORE_API_KEY: 'sk_env_bad_key_1111' });
    expect(fromEnv.exitCode).toBe(4);
    expect(JSON.parse(fromEnv.stdout)).toMatchObject({ keySource: 'PETSTORE_API_KEY', key: '****1111', server: 'rejected' });

    const all = await auth(['status', '--all']);
    expect(all.exitCode).toBe(0);
    expect(all.stdout).toContain('staging');
    expect(all.stdout).toContain('not checked (no key)'); // PETSTORE_BASE_URL gives every environment a URL

    for (const out of [none, ok, fromEnv, all]) {
      expect(out.stdout + out.stderr).not.toContain(E2E_KEY);
      expect(out.stdout + out.stderr).not.toContain('sk_env_bad_key_1111');
    }
  });

  it('logout removes the stored key; later commands exit 4', async () => {
    await auth(['login'], E2E_KEY);
    const r = await auth(['logout']);
    expect(r).toMatchObject({ exitCode: 0, stdout: '' });
    expect(r.stderr).toBe(`Removed the stored API key for production from ${configFile()}.\n`);
    expect(stored()).not.toContain(E2E_KEY);
    expect((await auth(['logout'])).stderr).toBe('No API key stored for production; nothing to remove.\n');
    expect((await t.cli(['pets', 'list'], { key: null })).exitCode).toBe(4);
  });

  it('PETSTORE_API_KEY overrides the stored key', async () => {
    await auth(['login', '--no-verify'], 'sk_stored_but_wrong_0000');
    const r = await t.cli(['pets', 'list']);
    expect(r.exitCode).toBe(0);
    expect(t.sb.requests()[0]!.headers.authorization).toBe(`Bearer ${E2E_KEY}`);
  });

  it('never prints the key, even with --debug', async () => {
    const r = await t.cli(['pets', 'list', '--debug']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout + r.stderr).not.toContain(E2E_KEY);
  });

  it.runIf(hasScript)('login on a terminal prompts with hidden input', async () => {
    const r = await runOnPty(['auth', 'login'], {
      env: { PETSTORE_CONFIG_DIR: t.configDir, PETSTORE_BASE_URL: t.sb.baseUrl, HOME: t.dir },
      steps: [{ waitFor: 'API key for production', type: `${E2E_KEY}\r` }],
    });
    expect(r.exitCode).toBe(0);
    expect(r.output).toContain(`API key for production (${t.sb.baseUrl}): `);
    expect(r.output).toContain(`Logged in to production (${t.sb.baseUrl}) with key ${masked}`);
    expect(r.output).not.toContain(E2E_KEY);
    expect(JSON.parse(stored()).envs.production.apiKey).toBe(E2E_KEY);
  });

  it.runIf(hasScript)('Ctrl-C at the prompt exits 130 and stores nothing', async () => {
    const r = await runOnPty(['auth', 'login'], {
      env: { PETSTORE_CONFIG_DIR: t.configDir, PETSTORE_BASE_URL: t.sb.baseUrl, HOME: t.dir },
      steps: [{ waitFor: 'API key for production', type: 'sk_partial\u0003' }],
    });
    expect(r.exitCode).toBe(130);
    expect(r.output).not.toContain('sk_partial');
    expect(stored()).not.toContain('sk_partial');
    expect(t.sb.requests()).toHaveLength(0);
  });

  it.runIf(hasScript)('--no-input on a terminal refuses to prompt (exit 2)', async () => {
    const r = await runOnPty(['auth', 'login', '--no-input'], {
      env: { PETSTORE_CONFIG_DIR: t.configDir, PETSTORE_BASE_URL: t.sb.baseUrl, HOME: t.dir },
    });
    expect(r.exitCode).toBe(2);
    expect(r.output).toContain('echo "$KEY" | petstore auth login');
  });
});
