import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { configDir } from '../../../src/config/paths.js';
import { ConfigStore } from '../../../src/config/store.js';
import { checkBaseUrl, maskKey, resolveEnvName, resolveTarget } from '../../../src/config/target.js';
import { UsageError } from '../../../src/errors/errors.js';
import { tempConfigDir } from '../../helpers/mock-api.js';

const posix = process.platform !== 'win32';

describe('checkBaseUrl', () => {
  it('accepts https anywhere and http on loopback, normalising the trailing slash', () => {
    expect(checkBaseUrl('https://api.example.com/v1/')).toEqual({ url: 'https://api.example.com/v1', warning: undefined });
    for (const u of ['http://127.0.0.1:8080/v1', 'http://localhost/v1', 'http://[::1]:3000/v1', 'http://127.1.2.3/v1']) {
      expect(checkBaseUrl(u).url).toBe(u);
    }
  });

  it('warns when the path does not end in /v1', () => {
    expect(checkBaseUrl('https://api.example.com').warning).toBe(
      'warning: base URL https://api.example.com does not end in /v1, the API version this CLI speaks',
    );
    expect(checkBaseUrl('https://api.example.com/v2').warning).toContain('does not end in /v1');
  });

  it.each([
    ['http://api.example.com/v1', 'plain http is allowed only for loopback hosts'],
    ['http://localhost.example.com/v1', 'plain http is allowed only for loopback hosts'],
    ['https://u:p@api.example.com/v1', 'must not contain credentials'],
    ['https://token@api.example.com/v1', 'must not contain credentials'],
    ['file:///etc/passwd', 'the scheme must be https'],
    ['api.example.com/v1', 'expected an absolute URL'],
    ['https://api.example.com/v1#x', 'query string or fragment'],
  ])('rejects %s', (url, message) => {
    expect(() => checkBaseUrl(url)).toThrow(UsageError);
    expect(() => checkBaseUrl(url)).toThrow(message);
  });

  it('never repeats credentials in its message', () => {
    expect(() => checkBaseUrl('https://user:hunter2@api.example.com/v1')).toThrow(/^(?!.*hunter2)/);
  });
});

describe('maskKey', () => {
  it('shows only the last four characters, and nothing of a short key', () => {
    expect(maskKey('sk_live_abcdefghijkl1234')).toBe('****1234');
    expect(maskKey('short')).toBe('****');
  });
});

describe('configDir', () => {
  it('honours PETSTORE_CONFIG_DIR, then XDG_CONFIG_HOME, then ~/.config', () => {
    expect(configDir({ PETSTORE_CONFIG_DIR: '/x/y' })).toBe('/x/y');
    if (posix) {
      expect(configDir({ XDG_CONFIG_HOME: '/xdg' })).toBe('/xdg/petstore');
      expect(configDir({ HOME: '/home/u' })).toBe('/home/u/.config/petstore');
    }
  });
});

describe('ConfigStore and resolveTarget', () => {
  let tmp: ReturnType<typeof tempConfigDir>;
  beforeEach(() => {
    tmp = tempConfigDir();
  });
  afterEach(() => tmp.cleanup());

  it('creates a 0700 folder and writes the key into a 0600 file', async () => {
    const store = new ConfigStore(tmp.dir);
    await store.setKey('production', 'sk_test_key_0001');
    if (posix) {
      expect(statSync(tmp.dir).mode & 0o777).toBe(0o700);
      expect(statSync(store.path).mode & 0o777).toBe(0o600);
    }
    expect(JSON.parse(readFileSync(store.path, 'utf8')).envs.production.apiKey).toBe('sk_test_key_0001');
  });

  it.runIf(posix)('tightens a loose file when a key is stored, and reports it (and a folder others may write to) before', async () => {
    mkdirSync(tmp.dir, { recursive: true, mode: 0o777 });
    chmodSync(tmp.dir, 0o777);
    writeFileSync(join(tmp.dir, 'config.json'), '{}', { mode: 0o644 });
    chmodSync(join(tmp.dir, 'config.json'), 0o644);
    const store = new ConfigStore(tmp.dir);
    expect(store.loosePermissions()).toHaveLength(2);
    await store.setKey('production', 'k');
    // The folder existed before: its mode stays the user's (and is still warned about).
    expect(store.loosePermissions()).toEqual([{ path: tmp.dir, mode: 0o777, risk: 'others may replace your config file there', fix: `chmod go-w ${tmp.dir}` }]);
    expect(statSync(tmp.dir).mode & 0o777).toBe(0o777);
  });

  it.runIf(posix)('a folder it creates is 0700', async () => {
    const dir = join(tmp.dir, 'new', 'petstore');
    const store = new ConfigStore(dir);
    await store.setKey('production', 'k');
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600);
  });

  it('always has production and staging; production is the default', () => {
    const store = new ConfigStore(tmp.dir);
    expect(Object.keys(store.envs()).sort()).toEqual(['production', 'staging']);
    expect(store.currentEnv()).toBe('production');
  });

  it('resolves --env over PETSTORE_ENV over the stored default, and PETSTORE_BASE_URL / PETSTORE_API_KEY over the config', async () => {
    const store = new ConfigStore(tmp.dir);
    await store.setBaseUrl('staging', 'https://staging.example.com/v1');
    await store.setBaseUrl('production', 'https://api.example.com/v1');
    await store.setKey('staging', 'stored-key');
    await store.setCurrentEnv('staging');
    expect(await resolveTarget(store, {}, undefined)).toEqual({
      envName: 'staging',
      envSource: 'config',
      baseUrl: 'https://staging.example.com/v1',
      baseUrlSource: 'config',
      apiKey: 'stored-key',
      keySource: 'config',
    });
    expect(await resolveTarget(store, { PETSTORE_ENV: 'production' }, undefined)).toMatchObject({ envName: 'production', envSource: 'PETSTORE_ENV' });
    expect(await resolveTarget(store, { PETSTORE_ENV: 'production' }, 'staging')).toMatchObject({ envName: 'staging', envSource: 'flag' });
    expect(await resolveTarget(store, { PETSTORE_BASE_URL: 'http://127.0.0.1:9/v1', PETSTORE_API_KEY: 'env-key' }, undefined)).toMatchObject({
      baseUrl: 'http://127.0.0.1:9/v1',
      baseUrlSource: 'PETSTORE_BASE_URL',
      apiKey: 'env-key',
      keySource: 'PETSTORE_API_KEY',
    });
  });

  it('fails with the exact env set command when the environment has no URL', async () => {
    const store = new ConfigStore(tmp.dir);
    await expect(resolveTarget(store, {}, 'staging')).rejects.toThrow(
      'environment "staging" has no base URL; set it with: petstore env set staging https://<host>/v1 (or set PETSTORE_BASE_URL)',
    );
  });

  it('fails for an unknown environment, naming the known ones', () => {
    const store = new ConfigStore(tmp.dir);
    expect(() => resolveEnvName(store, {}, 'qa')).toThrow('unknown environment "qa" (known: production, staging)');
  });

  it('checks PETSTORE_BASE_URL like a stored URL', async () => {
    const store = new ConfigStore(tmp.dir);
    await expect(resolveTarget(store, { PETSTORE_BASE_URL: 'http://example.com/v1' }, undefined)).rejects.toThrow('invalid PETSTORE_BASE_URL');
  });

  it('reports a config file that is not JSON, without rewriting it', () => {
    mkdirSync(tmp.dir, { recursive: true });
    writeFileSync(join(tmp.dir, 'config.json'), '{oops');
    expect(() => new ConfigStore(tmp.dir)).toThrow(/config file .* is not valid JSON/);
    expect(readFileSync(join(tmp.dir, 'config.json'), 'utf8')).toBe('{oops');
  });

  it('deleteKey removes only the key', async () => {
    const store = new ConfigStore(tmp.dir);
    await store.setBaseUrl('production', 'https://api.example.com/v1');
    await store.setKey('production', 'k');
    expect(await store.deleteKey('production')).toBe(true);
    expect(store.env('production')).toEqual({ baseUrl: 'https://api.example.com/v1' });
    expect(await store.deleteKey('production')).toBe(false);
  });
});
