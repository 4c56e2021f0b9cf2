// Issue #33: keys in the system keyring, against a real Secret Service (gnome-keyring-daemon on a private
// D-Bus session, test/helpers/secret-service.ts), without D-Bus (the fallback to the 0600 file), and with a
// store that never answers (the daemon stopped with SIGSTOP: the bound, not D-Bus's own 25 s, ends the wait).

import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { E2E_KEY, e2e, expectNoKey, fakeServer, type E2E } from '../helpers/e2e.js';
import { hasSecretService, type SecretService, startSecretService } from '../helpers/secret-service.js';
import { hasScript, runOnPty } from '../helpers/pty.js';
import { missingTool } from '../helpers/tools.js';

/** Every regular file under dir whose bytes contain text. */
function filesHolding(dir: string, text: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    const path = join(dir, name);
    if (statSync(path).isFile() && readFileSync(path).includes(text)) found.push(path);
  }
  return found;
}

const config = (t: E2E) => JSON.parse(readFileSync(join(t.configDir, 'config.json'), 'utf8')) as { envs: Record<string, Record<string, string>> };

describe.skipIf(missingTool('gnome-keyring-daemon, dbus-daemon, secret-tool (Debian gnome-keyring, dbus, libsecret-tools)', hasSecretService()))(
  'keys in a real Secret Service',
  // Each test runs the CLI several times, some waiting out the 2 s bound: room for a loaded machine.
  { timeout: 90_000 },
  () => {
    let t: E2E;
    let store: SecretService;
    let account: string;
    // The CLI with the private bus, and no PETSTORE_API_KEY: the stored key is the one in force.
    const cli = (args: string[], opts: Parameters<E2E['cli']>[1] = {}) =>
      t.cli(args, { key: null, ...opts, env: { DBUS_SESSION_BUS_ADDRESS: store.address, ...opts.env } });

    beforeAll(async () => {
      t = await e2e();
      store = await startSecretService(t.dir);
      account = `production (${t.sb.baseUrl})`;
    });
    afterAll(async () => {
      await store?.stop();
      await t?.close();
    });

    it('auth login puts the key in the keyring and in no file; pets list and auth status use it; logout removes it (then exit 4)', async () => {
      const login = await cli(['auth', 'login'], { input: E2E_KEY });
      expect(login.exitCode, login.stderr).toBe(0);
      expect(login.stderr).toBe(`Logged in to ${account} with key ****9z9z; the key is in the system keyring\n`);
      expect(store.lookup(account)).toBe(E2E_KEY);
      expect(filesHolding(t.dir, E2E_KEY)).toEqual([]);
      expect(config(t).envs.production).toEqual({ keyring: account });

      expect((await cli(['pets', 'list'])).exitCode).toBe(0);
      const status = await cli(['auth', 'status']);
      expect(status.stdout).toMatch(/^production \*\t.*\tkeyring\t\*\*\*\*9z9z\taccepted$/m);
      expect(JSON.parse((await cli(['auth', 'status', '-o', 'json'])).stdout)).toMatchObject({ keySource: 'keyring', server: 'accepted' });
      expect((await cli(['env', 'list'])).stdout).toMatch(/^\*\tproduction\t\(not set\)\tyes$/m);

      const logout = await cli(['auth', 'logout']);
      expect(logout.stderr).toBe('Removed the stored API key for production from the system keyring.\n');
      expect(store.lookup(account)).toBeUndefined();
      const after = await cli(['pets', 'list']);
      expect(after.exitCode).toBe(4);
      expect(after.stderr).toContain('no API key for environment "production"');
    });

    it('a key read from the keyring is masked in --debug traces when a server echoes it', async () => {
      const echo = await fakeServer((req, res) => {
        res.setHeader('x-echo', E2E_KEY);
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ seen: E2E_KEY, encoded: encodeURIComponent(E2E_KEY), auth: req.headers.authorization }));
      });
      try {
        expect((await cli(['auth', 'login', '--no-verify'], { input: E2E_KEY })).exitCode).toBe(0);
        const r = await cli(['--debug', 'pets', 'list'], { env: { PETSTORE_BASE_URL: echo.baseUrl } });
        expect(echo.hits()).toBeGreaterThan(0);
        expect(r.stderr).toContain('****9z9z');
        expectNoKey(r);
      } finally {
        await echo.close();
        await cli(['auth', 'logout']);
      }
    });

    it('a key already in the file keeps working, and auth login again moves it into the keyring', async () => {
      const insecure = await cli(['auth', 'login', '--insecure-storage'], { input: E2E_KEY });
      expect(insecure.stderr).toContain(`the key is in ${join(t.configDir, 'config.json')} (mode 0600)`);
      expect(config(t).envs.production).toEqual({ apiKey: E2E_KEY });
      expect(store.lookup(account)).toBeUndefined();
      expect((await cli(['pets', 'list'])).exitCode).toBe(0);
      expect(JSON.parse((await cli(['auth', 'status', '-o', 'json'])).stdout)).toMatchObject({ keySource: 'config' });

      expect((await cli(['auth', 'login'], { input: E2E_KEY })).exitCode).toBe(0);
      expect(config(t).envs.production).toEqual({ keyring: account });
      expect(store.lookup(account)).toBe(E2E_KEY);
      expect(filesHolding(t.dir, E2E_KEY)).toEqual([]);
    });

    it('env remove deletes the key from the keyring too', async () => {
      writeFileSync(join(t.configDir, 'config.json'), JSON.stringify({ envs: { qa: { baseUrl: t.sb.baseUrl } } }));
      const qa = `qa (${t.sb.baseUrl})`;
      expect((await cli(['auth', 'login', '--env', 'qa'], { input: E2E_KEY, env: { PETSTORE_BASE_URL: undefined } })).exitCode).toBe(0);
      expect(store.lookup(qa)).toBe(E2E_KEY);
      const r = await cli(['env', 'remove', 'qa', '--yes']);
      expect(r.stderr).toContain('Removed environment "qa" and its stored API key.');
      expect(store.lookup(qa)).toBeUndefined();
    });

    it('a store that never answers: the read ends after the bound (exit 4), login falls back to the file and says so', async () => {
      expect((await cli(['auth', 'login'], { input: E2E_KEY })).exitCode).toBe(0);
      store.freeze();
      try {
        // D-Bus itself gives up after 25 s: a run that ends well before proves the 2 s bound.
        const read = await cli(['pets', 'list'], { timeoutMs: 15_000 });
        expect(read.exitCode).toBe(4);
        expect(read.stderr).toContain('cannot read the API key of "production" from the system keyring: no answer within 2 s;');
        const logout = await cli(['auth', 'logout'], { timeoutMs: 15_000 });
        expect(logout.exitCode).toBe(4);
        expect(logout.stderr).toContain('nothing was changed');
        expect(config(t).envs.production).toEqual({ keyring: account });

        const login = await cli(['auth', 'login'], { input: E2E_KEY, timeoutMs: 15_000 });
        expect(login.exitCode).toBe(0);
        expect(login.stderr).toContain('note: no usable system keyring (no answer within 2 s), so the key goes to the config file\n');
        expect(login.stderr).toContain(`the key is in ${join(t.configDir, 'config.json')} (mode 0600)`);
        expect((await cli(['pets', 'list'], { timeoutMs: 15_000 })).exitCode).toBe(0);
      } finally {
        store.thaw();
      }
      // The old entry could not be deleted while the store was stopped; logging in again tidies it.
      expect((await cli(['auth', 'login'], { input: E2E_KEY })).exitCode).toBe(0);
      expect((await cli(['auth', 'logout'])).exitCode).toBe(0);
      expect(store.lookup(account)).toBeUndefined();
    });
    it.skipIf(!hasScript)('on a terminal the wait for a silent store is said on stderr, and Ctrl-C ends it (exit 130)', async () => {
      const before = readFileSync(join(t.configDir, 'config.json'), 'utf8');
      store.freeze();
      try {
        const r = await runOnPty(['auth', 'login', '--no-verify'], {
          env: {
            HOME: t.dir,
            PETSTORE_CONFIG_DIR: t.configDir,
            PETSTORE_STATE_DIR: join(t.dir, 'state'),
            PETSTORE_BASE_URL: t.sb.baseUrl,
            DBUS_SESSION_BUS_ADDRESS: store.address,
          },
          steps: [
            { waitFor: 'API key for', type: `${E2E_KEY}\r` },
            { waitFor: 'waiting for the system keyring (up to 30 s); unlock it if it asks', type: '\x03' },
          ],
          timeoutMs: 20_000,
        });
        expect(r.exitCode, r.output).toBe(130);
        expect((await r.screen()).join('\n')).toContain('waiting for the system keyring (up to 30 s); unlock it if it asks');
        expect(r.output).not.toContain(E2E_KEY);
      } finally {
        store.thaw();
      }
      expect(readFileSync(join(t.configDir, 'config.json'), 'utf8')).toBe(before);
    });
  },
);

describe('without D-Bus', () => {
  let t: E2E;
  beforeAll(async () => {
    t = await e2e();
  });
  afterAll(() => t.close());

  it('auth login keeps the key in the 0600 file, says where in one line, and the key works', async () => {
    const login = await t.cli(['auth', 'login'], { key: null, input: E2E_KEY, timeoutMs: 15_000 });
    expect(login.exitCode).toBe(0);
    const file = join(t.configDir, 'config.json');
    expect(login.stderr).toMatch(/^note: no usable system keyring \(.+\), so the key goes to the config file\n/);
    expect(login.stderr).toContain(`the key is in ${file} (mode 0600)\n`);
    expect(config(t).envs.production).toEqual({ apiKey: E2E_KEY });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect((await t.cli(['pets', 'list'], { key: null })).exitCode).toBe(0);
    expect((await t.cli(['auth', 'logout'], { key: null })).stderr).toBe(`Removed the stored API key for production from ${file}.\n`);
  });

  // glibc's loader names each shared object it opens (LD_DEBUG=files): the binding is one.
  it.runIf(process.platform === 'linux')('only commands that need a key load the binding', async () => {
    const loads = async (args: string[], input?: string) =>
      (await t.cli(args, { key: null, env: { LD_DEBUG: 'files' }, ...(input ? { input } : {}) })).stderr.includes('keyring.linux-');
    for (const args of [['--version'], ['help'], ['env', 'list'], ['completion', 'bash'], ['sandbox', '--help']])
      expect(await loads(args), args.join(' ')).toBe(false);
    expect(await loads(['auth', 'login', '--no-verify'], E2E_KEY)).toBe(true);
  });
});
