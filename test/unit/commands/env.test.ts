import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runInProcess, type InProcessOptions } from '../../helpers/inprocess.js';
import { tempConfigDir } from '../../helpers/mock-api.js';

let cfg: ReturnType<typeof tempConfigDir>;
beforeEach(() => {
  cfg = tempConfigDir();
});
afterEach(() => cfg.cleanup());

function run(args: string[], opts: InProcessOptions = {}) {
  return runInProcess(args, { ...opts, env: { PETSTORE_CONFIG_DIR: cfg.dir, ...opts.env } });
}
const config = () => JSON.parse(readFileSync(join(cfg.dir, 'config.json'), 'utf8'));

describe('env list', () => {
  it('always has production and staging, marks production current by default, and has no built-in URL', async () => {
    const r = await run(['env', 'list']);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe('current: production (from built-in default)\n');
    expect(r.stdout).toBe('current\tname\tbaseUrl\tkey\n*\tproduction\t(not set)\tno\n\tstaging\t(not set)\tno\n');
  });

  it('supports -o json/ndjson/csv with real values', async () => {
    await run(['env', 'set', 'staging', 'https://staging.example.com/v1']);
    await run(['auth', 'login', '--no-verify', '--env', 'staging'], { input: 'sk_test_0123456789abcdef' });
    const r = await run(['env', 'list', '-o', 'json']);
    expect(JSON.parse(r.stdout)).toEqual([
      { name: 'production', current: true, currentSource: 'default', baseUrl: null, keyStored: false },
      { name: 'staging', current: false, currentSource: null, baseUrl: 'https://staging.example.com/v1', keyStored: true },
    ]);
    expect(r.stdout).not.toContain('0123456789abcdef');
    // No table line on stderr in machine formats: the JSON says it.
    expect(r.stderr).toBe('');
    // The `*` marker is the table's; csv says true or false, as JSON does.
    const csv = await run(['env', 'list', '-o', 'csv']);
    expect(csv.stdout).toBe('current,name,baseUrl,key\ntrue,production,(not set),no\nfalse,staging,https://staging.example.com/v1,yes\n');
    const nd = await run(['env', 'list', '-o', 'ndjson']);
    expect(nd.stdout.trim().split('\n')).toHaveLength(2);
  });

  it('marks the environment chosen by PETSTORE_ENV or --env for this call', async () => {
    const viaEnv = await run(['env', 'list', '-o', 'json'], { env: { PETSTORE_ENV: 'staging' } });
    expect(JSON.parse(viaEnv.stdout).find((e: { current: boolean }) => e.current)).toMatchObject({ name: 'staging', currentSource: 'PETSTORE_ENV' });
    const viaFlag = await run(['--env', 'staging', 'env', 'list', '-o', 'json']);
    expect(JSON.parse(viaFlag.stdout).find((e: { current: boolean }) => e.current)).toMatchObject({ name: 'staging', currentSource: 'flag' });
  });

  it('says on stderr which source chose the current environment', async () => {
    expect((await run(['env', 'list'], { env: { PETSTORE_ENV: 'staging' } })).stderr).toBe('current: staging (from PETSTORE_ENV; the default is production)\n');
    expect((await run(['--env', 'staging', 'env', 'list'])).stderr).toBe('current: staging (from --env; the default is production)\n');
    await run(['env', 'use', 'staging']);
    expect((await run(['env', 'list'])).stderr).toBe('current: staging (from env use)\n');
    const json = await run(['env', 'list', '-o', 'json']);
    expect(JSON.parse(json.stdout).find((e: { current: boolean }) => e.current)).toMatchObject({ name: 'staging', currentSource: 'config' });
    // --quiet: only errors on stderr.
    expect((await run(['env', 'list', '-q'])).stderr).toBe('');
  });

  it('draws a table on a TTY', async () => {
    const r = await run(['env', 'list'], { stdoutTTY: true, env: { NO_COLOR: '1' } });
    expect(r.stdout).toMatch(/^CURRENT {2}NAME +BASE URL +KEY\n/);
    expect(r.stdout).toMatch(/^\* +production /m);
    expect(r.stdout).toContain('production');
  });
});

describe('env set', () => {
  it('adds a new environment and updates an existing one', async () => {
    const add = await run(['env', 'set', 'local', 'http://127.0.0.1:8080/v1/']);
    expect(add.exitCode).toBe(0);
    expect(add.stderr).toContain('Added environment "local": http://127.0.0.1:8080/v1');
    expect(add.stderr).toContain('petstore env use local');
    expect(config().envs.local.baseUrl).toBe('http://127.0.0.1:8080/v1');
    const update = await run(['env', 'set', 'local', 'http://localhost:9090/v1']);
    expect(update.stderr).toContain('Updated environment "local": http://localhost:9090/v1');
    expect(config().envs.local.baseUrl).toBe('http://localhost:9090/v1');
  });

  it('warns when the URL does not end in /v1, but stores it', async () => {
    const r = await run(['env', 'set', 'production', 'https://api.example.com']);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain('warning: base URL https://api.example.com does not end in /v1');
    expect(config().envs.production.baseUrl).toBe('https://api.example.com');
  });

  it.each([
    [['http://api.example.com/v1'], 'plain http is allowed only for loopback hosts'],
    [['https://user:secret@api.example.com/v1'], 'must not contain credentials'],
    [['ftp://api.example.com/v1'], 'the scheme must be https'],
    [['not a url'], 'expected an absolute URL'],
    [['https://api.example.com/v1?x=1'], 'must not contain a query string'],
  ])('rejects %j with exit 2', async ([url], message) => {
    const r = await run(['env', 'set', 'production', url!]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stderr).not.toContain('secret');
  });

  it.each(['Prod', '1env', 'a b', 'x'.repeat(33), ''])('rejects the name %j with exit 2', async (name) => {
    const r = await run(['env', 'set', name, 'https://api.example.com/v1']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('invalid environment name');
  });

  it('requires both arguments', async () => {
    const r = await run(['env', 'set', 'qa']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("missing required argument 'baseUrl'");
  });
});

describe('env set: a new URL for an environment with a stored key', () => {
  const KEY = 'sk_test_0123456789abcdef';
  async function withKey() {
    await run(['env', 'set', 'local', 'http://127.0.0.1:8080/v1']);
    await run(['auth', 'login', '--no-verify', '--env', 'local'], { input: KEY });
  }

  it('not on a terminal: keeps the key, with one warning line naming the new URL and the logout command', async () => {
    await withKey();
    const r = await run(['env', 'set', 'local', 'http://127.0.0.1:9090/v1']);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe(
      'Updated environment "local": http://127.0.0.1:9090/v1\n' +
        'warning: the stored API key of "local" stays and will be sent to http://127.0.0.1:9090/v1; if it is not for that server: petstore auth logout --env local\n' +
        'To make it the default: petstore env use local\n',
    );
    expect(config().envs.local).toEqual({ baseUrl: 'http://127.0.0.1:9090/v1', apiKey: KEY });
    expect(r.stderr).not.toContain('0123456789abcdef');
  });

  it('--yes keeps it the same way; the same URL again, or no key, warns about nothing', async () => {
    await withKey();
    const yes = await run(['env', 'set', 'local', 'http://127.0.0.1:9090/v1', '--yes']);
    expect(yes.stderr).toContain('warning: the stored API key of "local" stays');
    expect(config().envs.local.apiKey).toBe(KEY);
    expect((await run(['env', 'set', 'local', 'http://127.0.0.1:9090/v1'])).stderr).not.toContain('warning');
    await run(['env', 'set', 'other', 'http://127.0.0.1:1/v1']);
    expect((await run(['env', 'set', 'other', 'http://127.0.0.1:2/v1'])).stderr).not.toContain('warning');
  });
});

describe('env remove', () => {
  it('not on a terminal, without --yes: one line naming --yes, exit 2, nothing changed', async () => {
    await run(['env', 'set', 'local', 'http://127.0.0.1:8080/v1']);
    const before = readFileSync(join(cfg.dir, 'config.json'), 'utf8');
    const r = await run(['env', 'remove', 'local']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toBe(
      'error: refusing to remove environment "local" (http://127.0.0.1:8080/v1) without confirmation: pass --yes (stdin is not a terminal)\n',
    );
    expect(readFileSync(join(cfg.dir, 'config.json'), 'utf8')).toBe(before);
    const noInput = await run(['env', 'remove', 'local', '--no-input'], { stdinTTY: true, stderrTTY: true });
    expect(noInput.exitCode).toBe(2);
    expect(noInput.stderr).toContain('pass --yes (--no-input was given)');
  });

  it('--yes removes it and its stored key', async () => {
    await run(['env', 'set', 'local', 'http://127.0.0.1:8080/v1']);
    await run(['auth', 'login', '--no-verify', '--env', 'local'], { input: 'sk_test_0123456789abcdef' });
    const r = await run(['env', 'remove', 'local', '--yes']);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe('Removed environment "local" and its stored API key.\n');
    expect(config().envs.local).toBeUndefined();
    expect(readFileSync(join(cfg.dir, 'config.json'), 'utf8')).not.toContain('0123456789abcdef');
    expect((await run(['env', 'list', '-o', 'json'])).stdout).not.toContain('local');
  });

  it('the default environment: removed, and the built-in default (production) takes over, said so', async () => {
    await run(['env', 'set', 'local', 'http://127.0.0.1:8080/v1']);
    await run(['env', 'use', 'local']);
    const r = await run(['env', 'remove', 'local', '--yes'], { env: { PETSTORE_ENV: 'local' } });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe(
      'Removed environment "local".\n' +
        '"local" was the default environment; the default is now production (built-in). Choose another with: petstore env use <name>\n' +
        'note: PETSTORE_ENV=local is set in this shell and names it: unset PETSTORE_ENV\n',
    );
    expect(config().currentEnv).toBeUndefined();
    expect((await run(['env', 'list'])).stderr).toBe('current: production (from built-in default)\n');
  });

  it('a built-in environment is reset, not removed: no URL, no key, still listed, still the default if it was', async () => {
    await run(['env', 'set', 'staging', 'https://staging.example.com/v1']);
    await run(['auth', 'login', '--no-verify', '--env', 'staging'], { input: 'sk_test_0123456789abcdef' });
    await run(['env', 'use', 'staging']);
    const r = await run(['env', 'remove', 'staging', '--yes']);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe('Reset built-in environment "staging": no base URL, no stored key (built-in environments always exist).\n');
    expect(config().envs.staging).toBeUndefined();
    expect(config().currentEnv).toBe('staging');
    expect(JSON.parse((await run(['env', 'list', '-o', 'json'])).stdout)).toContainEqual({
      name: 'staging',
      current: true,
      currentSource: 'config',
      baseUrl: null,
      keyStored: false,
    });
    const again = await run(['env', 'remove', 'staging']);
    expect(again.exitCode).toBe(0);
    expect(again.stderr).toBe('Built-in environment "staging" has no base URL or stored key; nothing to remove (built-in environments always exist).\n');
  });

  it('a built-in environment with only a key: the refusal and the reset name just the key', async () => {
    await run(['auth', 'login', '--no-verify'], { input: 'sk_test_0123456789abcdef' });
    const refused = await run(['env', 'remove', 'production']);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toBe(
      'error: refusing to reset built-in environment "production": forget its stored API key without confirmation: pass --yes (stdin is not a terminal)\n',
    );
    expect(config().envs.production.apiKey).toBe('sk_test_0123456789abcdef');
    expect((await run(['env', 'remove', 'production', '--yes'])).exitCode).toBe(0);
    expect(config().envs.production).toBeUndefined();
  });

  it('an unknown name: exit 2 naming the known ones', async () => {
    const r = await run(['env', 'remove', 'qa', '--yes']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toBe('error: unknown environment "qa" (known: production, staging); nothing was removed\n');
  });
});

describe('env use', () => {
  it('persists the default environment', async () => {
    await run(['env', 'set', 'staging', 'https://staging.example.com/v1']);
    const r = await run(['env', 'use', 'staging']);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe('Switched to environment "staging" (https://staging.example.com/v1).\n');
    expect(config().currentEnv).toBe('staging');
    const show = await run(['env', 'show', '-o', 'json']);
    expect(JSON.parse(show.stdout)).toMatchObject({ name: 'staging', nameSource: 'config', baseUrl: 'https://staging.example.com/v1' });
  });

  it('allows an environment without a URL but warns', async () => {
    const r = await run(['env', 'use', 'staging']);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain('warning: environment "staging" has no base URL yet; set it with: petstore env set staging https://<host>/v1');
  });

  it('rejects an unknown name with exit 2, naming the known ones and the env set command', async () => {
    const r = await run(['env', 'use', 'qa']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toBe('error: unknown environment "qa" (known: production, staging); add it first with: petstore env set qa <baseUrl>\n');
  });
});

describe('env show', () => {
  it('shows the environment in force and where each setting comes from', async () => {
    await run(['env', 'set', 'production', 'https://api.example.com/v1']);
    const r = await run(['env', 'show', '-o', 'json']);
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      name: 'production',
      nameSource: 'default',
      baseUrl: 'https://api.example.com/v1',
      baseUrlSource: 'config',
      keyStored: false,
      key: null,
      keyFromEnv: false,
      configFile: join(cfg.dir, 'config.json'),
    });
  });

  it('respects --env, PETSTORE_ENV and PETSTORE_BASE_URL, and masks the stored key', async () => {
    await run(['auth', 'login', '--no-verify', '--env', 'staging'], { input: 'sk_test_0123456789abcdef' });
    const r = await run(['--env', 'staging', 'env', 'show', '--json'], {
      env: { PETSTORE_ENV: 'production', PETSTORE_BASE_URL: 'http://127.0.0.1:1/v1', PETSTORE_API_KEY: 'x' },
    });
    expect(JSON.parse(r.stdout)).toMatchObject({
      name: 'staging',
      nameSource: 'flag',
      baseUrl: 'http://127.0.0.1:1/v1',
      baseUrlSource: 'PETSTORE_BASE_URL',
      keyStored: true,
      key: '****cdef',
      keyFromEnv: true,
    });
    expect(r.stdout).not.toContain('0123456789abcdef');
    const viaEnv = await run(['env', 'show', '--json'], { env: { PETSTORE_ENV: 'staging' } });
    expect(JSON.parse(viaEnv.stdout)).toMatchObject({ name: 'staging', nameSource: 'PETSTORE_ENV', baseUrl: null });
  });

  it('says how to set a missing URL, and exits 0', async () => {
    const r = await run(['env', 'show']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('name\tfrom\tbaseUrl\tbaseUrlFrom\tkey\nproduction\tbuilt-in default\t(not set)\t\tno\n');
    expect(r.stderr).toContain('petstore env set production https://<host>/v1');
  });

  it('exits 2 for an unknown --env or PETSTORE_ENV', async () => {
    expect((await run(['--env', 'qa', 'env', 'show'])).exitCode).toBe(2);
    const r = await run(['env', 'show'], { env: { PETSTORE_ENV: 'qa' } });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('unknown environment "qa"');
  });

  it('treats an empty PETSTORE_ENV as unset', async () => {
    const r = await run(['env', 'show', '--json'], { env: { PETSTORE_ENV: '' } });
    expect(JSON.parse(r.stdout)).toMatchObject({ name: 'production', nameSource: 'default' });
  });

  it('names "env use" as the source once a default is stored, also when it is production', async () => {
    await run(['env', 'use', 'production']);
    const r = await run(['env', 'show']);
    expect(r.stdout).toBe('name\tfrom\tbaseUrl\tbaseUrlFrom\tkey\nproduction\tenv use\t(not set)\t\tno\n');
    expect(JSON.parse((await run(['env', 'show', '--json'])).stdout)).toMatchObject({ name: 'production', nameSource: 'config' });
  });
});

describe('a broken config file', () => {
  it('is reported with exit 2 and left alone', async () => {
    await run(['env', 'set', 'production', 'https://api.example.com/v1']);
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(cfg.dir, 'config.json'), '{"envs": [1,2]}');
    const r = await run(['env', 'list']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('unexpected shape');
    expect(readFileSync(join(cfg.dir, 'config.json'), 'utf8')).toBe('{"envs": [1,2]}');
  });
});
