import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { MOCK_BASE_URL, mockedCli } from '../../helpers/mock-api.js';

const KEY = 'sk_live_abcdefghijklmnop1234';
const OTHER = 'sk_live_zyxwvutsrqponmlk9876';
const OK_LIST = { status: 200, body: '[]' };
const UNAUTHORIZED = { status: 401, body: { code: 'unauthorized', message: 'Invalid API key', status: 401 } };

const cli = mockedCli({ env: {} });
const run = cli.run;

beforeEach(async () => {
  await run(['env', 'set', 'production', MOCK_BASE_URL]);
});

const configFile = () => join(cli.cfg.dir, 'config.json');
const stored = (): string => (existsSync(configFile()) ? readFileSync(configFile(), 'utf8') : '');

/** Keys accepted by the mock server: KEY only. */
function acceptOnly(key: string) {
  cli.api.on('GET', /^\/v1\/pets/, (req) => (req.headers.authorization === `Bearer ${key}` ? OK_LIST : UNAUTHORIZED));
}

describe('auth login', () => {
  it('reads the key from piped stdin, verifies it with GET /pets?limit=1, and stores it 0600 in a 0700 folder', async () => {
    acceptOnly(KEY);
    const r = await run(['auth', 'login', '--insecure-storage'], { input: `${KEY}\n` });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`Logged in to production (${MOCK_BASE_URL}) with key ****1234; the key is in ${configFile()} (mode 0600)\n`);
    expect(cli.api.requests).toHaveLength(1);
    expect(cli.api.requests[0]!.path).toBe('/v1/pets?limit=1');
    expect(cli.api.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(JSON.parse(stored()).envs.production.apiKey).toBe(KEY);
    if (process.platform !== 'win32') {
      expect(statSync(configFile()).mode & 0o777).toBe(0o600);
      expect(statSync(cli.cfg.dir).mode & 0o777).toBe(0o700);
    }
  });

  it('verifies the new key even when PETSTORE_API_KEY is set, and notes the override', async () => {
    acceptOnly(KEY);
    const r = await run(['auth', 'login'], { input: KEY, env: { PETSTORE_API_KEY: OTHER } });
    expect(r.exitCode).toBe(0);
    expect(cli.api.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(r.stderr).toContain('PETSTORE_API_KEY is set and overrides the stored key');
  });

  it('stores nothing on 401 and exits 4', async () => {
    acceptOnly(OTHER);
    const r = await run(['auth', 'login'], { input: KEY });
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toContain('nothing was stored');
    expect(r.stderr).toContain('Invalid API key (unauthorized, HTTP 401)');
    expect(r.stderr).not.toContain(KEY);
    expect(stored()).not.toContain(KEY);
  });

  it('stores nothing when the check fails on the network, and suggests --no-verify (exit 7)', async () => {
    cli.api.fail('GET', /^\/v1\/pets/, Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
    const r = await run(['auth', 'login', '--max-retries', '0'], { input: KEY });
    expect(r.exitCode).toBe(7);
    expect(r.stderr).toContain('--no-verify');
    expect(stored()).not.toContain(KEY);
  });

  it('--no-verify stores without any request', async () => {
    const r = await run(['auth', 'login', '--no-verify', '--env', 'staging', '--insecure-storage'], { input: KEY });
    expect(r.exitCode).toBe(0);
    expect(cli.api.requests).toHaveLength(0);
    expect(r.stderr).toBe(`Stored key ****1234 for staging without checking it; the key is in ${configFile()} (mode 0600)\n`);
    expect(JSON.parse(stored()).envs.staging.apiKey).toBe(KEY);
  });

  it.each([
    ['', 'no API key given'],
    ['  \n', 'no API key given'],
    ['two words', 'contains spaces'],
    ['line1\nline2', 'contains spaces, line breaks'],
  ])('rejects stdin %j with exit 2 and sends nothing', async (input, message) => {
    const r = await run(['auth', 'login'], { input });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(message);
    expect(cli.api.requests).toHaveLength(0);
  });

  it('exits 2 naming the env set command before asking for a key when the environment has no URL', async () => {
    const r = await run(['auth', 'login', '--env', 'staging'], { input: KEY });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('petstore env set staging https://<host>/v1');
  });

  it('takes no key as an argument or flag', async () => {
    expect((await run(['auth', 'login', KEY])).exitCode).toBe(2);
    expect((await run(['auth', 'login', '--key', KEY])).exitCode).toBe(2);
    expect((await run(['auth', 'login', '--token', KEY])).exitCode).toBe(2);
    expect(stored()).not.toContain(KEY);
  });

  describe('on a terminal', () => {
    const tty = { stdinTTY: true, stderrTTY: true };

    it('prompts on stderr with hidden input', async () => {
      acceptOnly(KEY);
      const r = await run(['auth', 'login', '--insecure-storage'], { ...tty, input: `${KEY}\r` });
      expect(r.exitCode).toBe(0);
      expect(r.stderr).toBe(
        `API key for production (${MOCK_BASE_URL}): \nLogged in to production (${MOCK_BASE_URL}) with key ****1234; the key is in ${configFile()} (mode 0600)\n`,
      );
      expect(JSON.parse(stored()).envs.production.apiKey).toBe(KEY);
    });

    it('handles backspace, Ctrl-U and arrow keys', async () => {
      acceptOnly(KEY);
      const typed = `junk\u0015${KEY.slice(0, 5)}X\u007f\u001b[D${KEY.slice(5)}\r`;
      const r = await run(['auth', 'login'], { ...tty, input: typed });
      expect(r.exitCode).toBe(0);
      expect(cli.api.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    });

    it('Ctrl-C cancels with exit 130 and stores nothing', async () => {
      const r = await run(['auth', 'login'], { ...tty, input: 'abc\u0003' });
      expect(r.exitCode).toBe(130);
      expect(cli.api.requests).toHaveLength(0);
      expect(stored()).not.toContain('abc');
    });

    it('--no-input refuses to prompt (exit 2) and says to pipe the key', async () => {
      const r = await run(['auth', 'login', '--no-input'], { ...tty, input: `${KEY}\r` });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain('echo "$KEY" | petstore auth login');
      expect(r.stderr).toContain('PETSTORE_API_KEY');
    });

    it('does not prompt when stderr is not a terminal (exit 2)', async () => {
      const r = await run(['auth', 'login'], { stdinTTY: true, input: `${KEY}\r` });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain('cannot prompt');
    });
  });
});

describe('auth status', () => {
  it('shows env, URL, key source, masked key and that the server accepts it (exit 0)', async () => {
    acceptOnly(KEY);
    await run(['auth', 'login', '--no-verify'], { input: KEY });
    const r = await run(['auth', 'status', '-o', 'json']);
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      env: 'production',
      current: true,
      baseUrl: MOCK_BASE_URL,
      keySource: 'config',
      configFile: configFile(),
      key: '****1234',
      server: 'accepted',
      detail: null,
    });
    expect(r.stdout + r.stderr).not.toContain(KEY);
    expect(cli.api.requests.map((q) => q.path)).toEqual(['/v1/pets?limit=1']);
  });

  it('prints a table row naming the config file', async () => {
    acceptOnly(KEY);
    await run(['auth', 'login', '--no-verify'], { input: KEY });
    const r = await run(['auth', 'status']);
    expect(r.stdout).toBe(`env\tbaseUrl\tkeySource\tkey\tserver\nproduction *\t${MOCK_BASE_URL}\t${configFile()}\t****1234\taccepted\n`);
  });

  it("csv: the env name alone, and a current column of true/false (the `*` marker is the table's)", async () => {
    acceptOnly(KEY);
    await run(['auth', 'login', '--no-verify'], { input: KEY });
    const one = await run(['auth', 'status', '-o', 'csv']);
    expect(one.stdout).toBe(`env,current,baseUrl,keySource,key,server\nproduction,true,${MOCK_BASE_URL},${configFile()},****1234,accepted\n`);
    const all = await run(['auth', 'status', '--all', '-o', 'csv']);
    expect(all.stdout).toBe(
      'env,current,baseUrl,keySource,key,server\n' +
        `production,true,${MOCK_BASE_URL},${configFile()},****1234,accepted\n` +
        'staging,false,(not set),none,,not checked (no base URL)\n',
    );
  });

  it('a key of PETSTORE_API_KEY the server rejects: the advice is to fix or unset it, not to log in', async () => {
    acceptOnly(KEY);
    const r = await run(['auth', 'status'], { env: { PETSTORE_API_KEY: OTHER } });
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toMatch(
      /^error: the server rejected the API key for "production": .*; PETSTORE_API_KEY is set and overrides the stored key: fix or unset it\n$/,
    );
    const all = await run(['auth', 'status', '--all'], { env: { PETSTORE_API_KEY: OTHER } });
    expect(all.stderr).toMatch(/; PETSTORE_API_KEY is set and overrides the stored key: fix or unset it\n$/);
  });

  it('reports PETSTORE_API_KEY as the source when it is set', async () => {
    acceptOnly(OTHER);
    await run(['auth', 'login', '--no-verify'], { input: KEY });
    const r = await run(['auth', 'status', '--json'], { env: { PETSTORE_API_KEY: OTHER } });
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ keySource: 'PETSTORE_API_KEY', key: '****9876', server: 'accepted' });
  });

  it('exits 4 when there is no key, sending nothing', async () => {
    const r = await run(['auth', 'status']);
    expect(r.exitCode).toBe(4);
    expect(r.stdout).toContain('none');
    expect(r.stderr).toBe('error: no API key for environment "production"; run: petstore auth login --env production (or set PETSTORE_API_KEY)\n');
    expect(cli.api.requests).toHaveLength(0);
  });

  it('exits 4 when the server rejects the key', async () => {
    acceptOnly(OTHER);
    await run(['auth', 'login', '--no-verify'], { input: KEY });
    const r = await run(['auth', 'status', '-o', 'json']);
    expect(r.exitCode).toBe(4);
    expect(JSON.parse(r.stdout)).toMatchObject({ server: 'rejected', detail: 'Invalid API key (unauthorized, HTTP 401)' });
    const errorLine = r.stderr.trim().split('\n').at(-1)!;
    expect(JSON.parse(errorLine).error).toMatchObject({ exitCode: 4 });
  });

  it('says "unknown" when the server cannot be reached, and exits 0', async () => {
    cli.api.fail('GET', /^\/v1\/pets/, Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
    const r = await run(['auth', 'status', '-o', 'json', '--max-retries', '0'], { env: { PETSTORE_API_KEY: KEY } });
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ server: 'unknown', detail: 'could not connect to api.test: connection refused' });
  });

  it('--all lists every environment; one without URL is not checked', async () => {
    acceptOnly(KEY);
    await run(['auth', 'login', '--no-verify'], { input: KEY });
    const r = await run(['auth', 'status', '--all', '-o', 'json']);
    expect(r.exitCode).toBe(0);
    const rows = JSON.parse(r.stdout) as { env: string; server: string; detail: string | null }[];
    expect(rows.map((x) => [x.env, x.server])).toEqual([
      ['production', 'accepted'],
      ['staging', 'not_checked'],
    ]);
    expect(rows[1]!.detail).toBe('no base URL');
    expect(cli.api.requests).toHaveLength(1);
  });

  it('--all exits 4 when no environment has a usable key', async () => {
    const r = await run(['auth', 'status', '--all']);
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toContain('no usable API key in any environment');
  });

  it('--all with --env is a usage error', async () => {
    const r = await run(['auth', 'status', '--all', '--env', 'staging']);
    expect(r.exitCode).toBe(2);
  });
});

describe('auth logout', () => {
  it('removes the stored key and says so; a second logout says there is none (exit 0)', async () => {
    await run(['auth', 'login', '--no-verify'], { input: KEY });
    const r = await run(['auth', 'logout']);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe(`Removed the stored API key for production from ${configFile()}.\n`);
    expect(stored()).not.toContain(KEY);
    const again = await run(['auth', 'logout']);
    expect(again.exitCode).toBe(0);
    expect(again.stderr).toBe('No API key stored for production; nothing to remove.\n');
  });

  it('touches only the named environment and mentions PETSTORE_API_KEY when set', async () => {
    await run(['auth', 'login', '--no-verify'], { input: KEY });
    await run(['auth', 'login', '--no-verify', '--env', 'staging'], { input: OTHER });
    const r = await run(['auth', 'logout', '--env', 'staging'], { env: { PETSTORE_API_KEY: 'x' } });
    expect(r.stderr).toContain('PETSTORE_API_KEY is set and still applies');
    const data = JSON.parse(stored());
    expect(data.envs.production.apiKey).toBe(KEY);
    expect(data.envs.staging.apiKey).toBeUndefined();
  });
});
