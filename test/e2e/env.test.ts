import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
import { E2E_KEY, e2e, expectNoKey, type E2E } from '../helpers/e2e.js';
import { hasScript, runOnPty } from '../helpers/pty.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.cleanup());

const cli = (args: string[], env: Record<string, string> = {}, input?: string) =>
  runCli(args, { configDir: tmp.dir, env, ...(input !== undefined ? { input } : {}) });
const configFile = () => join(tmp.dir, 'petstore', 'config.json');

describe('petstore env (built CLI)', () => {
  it('lists production and staging with no URL on a fresh install', async () => {
    const r = await cli(['env', 'list']);
    expect(r).toEqual({
      exitCode: 0,
      stderr: 'current: production (from built-in default)\n',
      stdout: 'current\tname\tbaseUrl\tkey\n*\tproduction\t(not set)\tno\n\tstaging\t(not set)\tno\n',
    });
  });

  it('a command on an environment without URL fails with exit 2 and the exact env set command', async () => {
    const r = await cli(['pets', 'list'], { PETSTORE_API_KEY: E2E_KEY });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toBe(
      'error: environment "production" has no base URL; set it with: petstore env set production https://<host>/v1 (or set PETSTORE_BASE_URL)\n',
    );
  });

  it('set adds and updates, use persists the default, show and list reflect it; the file is 0600 in a 0700 folder', async () => {
    expect((await cli(['env', 'set', 'local', 'http://127.0.0.1:8080/v1'])).exitCode).toBe(0);
    const warn = await cli(['env', 'set', 'staging', 'https://staging.example.com']);
    expect(warn.exitCode).toBe(0);
    expect(warn.stderr).toContain('does not end in /v1');
    expect((await cli(['env', 'set', 'staging', 'https://staging.example.com/v1'])).stderr).toContain('Updated environment "staging"');
    const use = await cli(['env', 'use', 'local']);
    expect(use).toMatchObject({ exitCode: 0, stdout: '' });
    expect(use.stderr).toBe('Switched to environment "local" (http://127.0.0.1:8080/v1).\n');
    const list = await cli(['env', 'list', '-o', 'json']);
    expect(JSON.parse(list.stdout)).toEqual([
      { name: 'local', current: true, currentSource: 'config', baseUrl: 'http://127.0.0.1:8080/v1', keyStored: false },
      { name: 'production', current: false, currentSource: null, baseUrl: null, keyStored: false },
      { name: 'staging', current: false, currentSource: null, baseUrl: 'https://staging.example.com/v1', keyStored: false },
    ]);
    const show = await cli(['env', 'show', '--json']);
    expect(JSON.parse(show.stdout)).toMatchObject({ name: 'local', nameSource: 'config', baseUrl: 'http://127.0.0.1:8080/v1', baseUrlSource: 'config' });
    expect(JSON.parse(readFileSync(configFile(), 'utf8')).currentEnv).toBe('local');
    if (process.platform !== 'win32') {
      expect(statSync(configFile()).mode & 0o777).toBe(0o600);
      expect(statSync(join(tmp.dir, 'petstore')).mode & 0o777).toBe(0o700);
    }
  });

  it('rejects bad names and URLs with exit 2', async () => {
    expect((await cli(['env', 'set', 'Bad Name', 'https://x.example.com/v1'])).exitCode).toBe(2);
    const http = await cli(['env', 'set', 'qa', 'http://x.example.com/v1']);
    expect(http.exitCode).toBe(2);
    expect(http.stderr).toContain('plain http is allowed only for loopback hosts');
    const creds = await cli(['env', 'set', 'qa', 'https://me:pw123@x.example.com/v1']);
    expect(creds.exitCode).toBe(2);
    expect(creds.stderr).not.toContain('pw123');
    const unknown = await cli(['env', 'use', 'qa']);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain('known: production, staging');
    expect(unknown.stderr).toContain('petstore env set qa <baseUrl>');
  });

  describe('overrides for one call', () => {
    let t: E2E;
    beforeEach(async () => {
      t = await e2e();
    });
    afterEach(() => t.close());

    it('--env and PETSTORE_ENV pick the environment, PETSTORE_BASE_URL the URL, without changing the default', async () => {
      await cli(['env', 'set', 'staging', t.sb.baseUrl]);
      const viaFlag = await cli(['--env', 'staging', 'pets', 'list', '-o', 'json'], { PETSTORE_API_KEY: E2E_KEY });
      expect(viaFlag.exitCode).toBe(0);
      const viaFlagAfter = await cli(['pets', 'list', '--env', 'staging', '-o', 'json'], { PETSTORE_API_KEY: E2E_KEY });
      expect(viaFlagAfter.exitCode).toBe(0);
      const viaEnv = await cli(['pets', 'list'], { PETSTORE_API_KEY: E2E_KEY, PETSTORE_ENV: 'staging' });
      expect(viaEnv.exitCode).toBe(0);
      const viaUrl = await cli(['pets', 'list'], { PETSTORE_API_KEY: E2E_KEY, PETSTORE_BASE_URL: t.sb.baseUrl });
      expect(viaUrl.exitCode).toBe(0);
      expect(t.sb.requests()).toHaveLength(4);
      const show = await cli(['env', 'show', '-o', 'json']);
      expect(JSON.parse(show.stdout)).toMatchObject({ name: 'production', baseUrl: null });
      const badUrl = await cli(['pets', 'list'], { PETSTORE_API_KEY: E2E_KEY, PETSTORE_BASE_URL: 'http://example.com/v1' });
      expect(badUrl.exitCode).toBe(2);
      expect(badUrl.stderr).toContain('invalid PETSTORE_BASE_URL');
    });
  });

  describe('on a terminal (confirmations)', () => {
    const ptyEnv = () => ({ PETSTORE_CONFIG_DIR: join(tmp.dir, 'petstore'), NO_COLOR: '1' });
    const stored = () => JSON.parse(readFileSync(configFile(), 'utf8')) as { currentEnv?: string; envs: Record<string, { baseUrl?: string; apiKey?: string }> };
    async function localWithKey() {
      await cli(['env', 'set', 'local', 'http://127.0.0.1:8080/v1']);
      await cli(['auth', 'login', '--no-verify', '--env', 'local'], {}, E2E_KEY);
    }

    it.runIf(hasScript)('env remove asks; No (the default) keeps everything, y removes the environment and its key', async () => {
      await localWithKey();
      const no = await runOnPty(['env', 'remove', 'local'], { env: ptyEnv(), steps: [{ waitFor: '[y/N]', type: '\r' }] });
      expectNoKey(no);
      expect(no.output).toContain('? Remove environment "local" (http://127.0.0.1:8080/v1) and its stored API key?');
      expect(no.output).toContain('error: not confirmed; nothing was removed');
      expect(no.exitCode).toBe(2);
      expect(stored().envs.local?.apiKey).toBe(E2E_KEY);

      const yes = await runOnPty(['env', 'remove', 'local'], { env: ptyEnv(), steps: [{ waitFor: '[y/N]', type: 'y\r' }] });
      expectNoKey(yes);
      expect(yes.exitCode).toBe(0);
      expect(yes.output).toContain('Removed environment "local" and its stored API key.');
      expect(stored().envs.local).toBeUndefined();
      expect(readFileSync(configFile(), 'utf8')).not.toContain(E2E_KEY);
    });

    it.runIf(hasScript)('env set with a new URL asks whether the stored key goes along; No (the default) removes it', async () => {
      await localWithKey();
      const no = await runOnPty(['env', 'set', 'local', 'http://127.0.0.1:9090/v1'], { env: ptyEnv(), steps: [{ waitFor: '[y/N]', type: '\r' }] });
      expectNoKey(no);
      expect(no.exitCode).toBe(0);
      // The terminal is 80 columns wide: the question wraps.
      expect(no.output.replace(/\s+/g, ' ')).toContain(
        '? Environment "local" has a stored API key for http://127.0.0.1:8080/v1. Keep it for http://127.0.0.1:9090/v1? (No removes it)',
      );
      expect(no.output).toContain('Removed the stored API key of "local"; store one for the new URL with: petstore auth login --env local');
      expect(stored().envs.local).toEqual({ baseUrl: 'http://127.0.0.1:9090/v1' });

      await cli(['auth', 'login', '--no-verify', '--env', 'local'], {}, E2E_KEY);
      const keep = await runOnPty(['env', 'set', 'local', 'http://127.0.0.1:8080/v1'], { env: ptyEnv(), steps: [{ waitFor: '[y/N]', type: 'y\r' }] });
      expect(keep.exitCode).toBe(0);
      expect(keep.output).toContain('warning: the stored API key of "local" stays and will be sent to http://127.0.0.1:8080/v1');
      expect(stored().envs.local).toEqual({ baseUrl: 'http://127.0.0.1:8080/v1', apiKey: E2E_KEY });

      // --yes: no question, the key stays, with the warning.
      const yes = await runOnPty(['env', 'set', 'local', 'http://127.0.0.1:9090/v1', '--yes'], { env: ptyEnv() });
      expect(yes.output).not.toContain('[y/N]');
      expect(yes.output).toContain('warning: the stored API key of "local" stays');
      expect(stored().envs.local?.apiKey).toBe(E2E_KEY);
    });
  });
});
