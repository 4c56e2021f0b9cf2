// The single executable (`npm run package`, scripts/package.mjs) on a PATH with no Node: built once for
// linux-x64 into a temporary folder, then used as a user without Node would: its own sandbox, env
// set/use, auth login from stdin, pets add (one, and a file with a journal), pets list, a seeding run
// stopped with SIGTERM and resumed, the documented exit codes, a key kept in a real Secret Service; and
// the same output as the npm build.
// Needs `npm run build` first (the npm build it is compared with), like every end-to-end test.
import { existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
import { readJournalNow, seedRecords, until, writeNdjson } from '../helpers/seeding.js';
import { hasSecretService, startSecretService } from '../helpers/secret-service.js';
import { missingTool } from '../helpers/tools.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
const KEY = 'sk_sea_test_key_0123456789abcdef';
const tmp = tempDir('petstore-sea-');
const bin = join(tmp.dir, 'bin');
/** The executable as a user has it: `petstore` in a folder on PATH. */
const PETSTORE = join(bin, 'petstore');
const env = {
  PATH: bin,
  HOME: tmp.dir,
  PETSTORE_CONFIG_DIR: join(tmp.dir, 'config'),
  PETSTORE_STATE_DIR: join(tmp.dir, 'state'),
};
let sandbox: ResultPromise | undefined;
let baseUrl = '';

/** Runs the executable, with stdin text if given. */
async function sea(args: string[], opts: { input?: string; env?: Record<string, string> } = {}) {
  const r = await execa(PETSTORE, args, {
    env: { ...env, ...opts.env },
    extendEnv: false,
    reject: false,
    stripFinalNewline: false,
    timeout: 30_000,
    ...(opts.input !== undefined ? { input: opts.input } : { stdin: 'ignore' as const }),
  });
  return { stdout: String(r.stdout), stderr: String(r.stderr), exitCode: r.exitCode };
}

/** The executable: PETSTORE_SEA (CI's, from `npm run package` of this tree), else built now by the pinned Node 24. */
async function executable(): Promise<string> {
  if (process.env.PETSTORE_SEA) return process.env.PETSTORE_SEA;
  const out = join(tmp.dir, 'release');
  await execa(join(root, 'node_modules/node/bin/node'), ['scripts/package.mjs', '--target', 'linux-x64', '--no-archives', '--out', out], { cwd: root });
  return join(out, `petstore-${pkg.version}-linux-x64`);
}

beforeAll(async () => {
  mkdirSync(bin);
  symlinkSync(resolve(root, await executable()), PETSTORE);

  sandbox = execa(PETSTORE, ['sandbox', '--port', '0', '--key', KEY, '--per-minute', '25', '--window', '1s', '--per-day', '1000000', '--no-ban'], {
    env,
    extendEnv: false,
    reject: false,
  });
  let banner = '';
  baseUrl = await new Promise<string>((resolve, reject) => {
    sandbox?.stderr?.on('data', (c: Buffer) => {
      banner += c.toString();
      const url = /listening on (\S+)/.exec(banner)?.[1];
      if (url && banner.includes('Press Ctrl-C to stop.')) resolve(url);
    });
    void sandbox?.then(() => reject(new Error(`the sandbox ended: ${banner}`)));
  });
}, 180_000);

afterAll(async () => {
  sandbox?.kill('SIGTERM');
  await sandbox;
  tmp.cleanup();
});

describe('the single executable, with no Node on PATH', () => {
  it('has no node to find: PATH holds the executable alone', () => {
    expect(env.PATH.split(':').filter((dir) => existsSync(join(dir, 'node')))).toEqual([]);
  });

  it('--version prints the version; --version --verbose and `version` add the commit and build date', async () => {
    expect(await sea(['--version'])).toEqual({ stdout: `${pkg.version}\n`, stderr: '', exitCode: 0 });
    const verbose = await sea(['--version', '--verbose']);
    expect(verbose.exitCode).toBe(0);
    expect(verbose.stdout).toMatch(new RegExp(`^${pkg.version}\\ncommit ([0-9a-f]{12}|unknown), built \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ\\n$`));
    expect((await sea(['version'])).stdout).toBe(verbose.stdout);
  });

  it('prints the same help and completion scripts as the npm build', async () => {
    for (const args of [['--help'], ['help', 'pets', 'add'], ['help', 'exit-codes'], ['completion', 'zsh'], ['completion', 'powershell']]) {
      const [mine, npm] = await Promise.all([sea(args), runCli(args)]);
      expect(npm.exitCode, args.join(' ')).toBe(0);
      expect(mine, args.join(' ')).toEqual(npm);
    }
  });

  it('its sandbox serves the OpenAPI description built into the executable', async () => {
    const res = await fetch(baseUrl.replace(/\/v1$/, '/openapi.yaml'));
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(readFileSync(join(root, 'openapi/petstore.yaml'), 'utf8'));
  });

  it('env set, env use, auth login from stdin, pets add, pets add --file with a journal, pets list', async () => {
    expect((await sea(['env', 'set', 'local', baseUrl])).exitCode).toBe(0);
    expect((await sea(['env', 'use', 'local'])).exitCode).toBe(0);
    const login = await sea(['auth', 'login'], { input: `${KEY}\n` });
    expect(login.exitCode, login.stderr).toBe(0);
    expect(login.stdout + login.stderr).not.toContain(KEY);

    const one = await sea(['pets', 'add', '--name', 'Rex', '--category-id', '9007199254740993', '-o', 'json']);
    expect(one.exitCode, one.stderr).toBe(0);
    expect(one.stdout).toContain('"name":"Rex","categoryId":9007199254740993');

    const file = writeNdjson(join(tmp.dir, 'few.ndjson'), seedRecords('few', 3));
    const journal = join(tmp.dir, 'few-journal.ndjson');
    const added = await sea(['pets', 'add', '--file', file, '--results', journal]);
    expect(added.exitCode, added.stderr).toBe(0);
    expect([...readJournalNow(journal).lastWord.values()]).toEqual(['created', 'created', 'created']);

    const list = await sea(['pets', 'list', '--limit', '100', '-o', 'json']);
    expect(list.exitCode, list.stderr).toBe(0);
    const names = (JSON.parse(list.stdout) as { name: string }[]).map((p) => p.name);
    expect(names).toEqual(expect.arrayContaining(['Rex', 'few-1', 'few-2', 'few-3']));
  });

  it('a seeding run stopped by SIGTERM exits 143; the command it names finishes it, nothing created twice', async () => {
    const records = seedRecords('kill', 60);
    const file = writeNdjson(join(tmp.dir, 'kill.ndjson'), records);
    const journal = join(tmp.dir, 'kill-journal.ndjson');
    const run = execa(PETSTORE, ['pets', 'add', '--file', file, '--results', journal, '--concurrency', '4'], { env, extendEnv: false, reject: false });
    // The sandbox takes 25 requests a second: the run is still going after 10 outcomes.
    await until('10 outcomes in the journal', () => readJournalNow(journal).outcomes >= 10, 30_000);
    run.kill('SIGTERM');
    const stopped = await run;
    expect(stopped.exitCode, String(stopped.stderr)).toBe(143);
    const resume = /continue with: (.+)$/m.exec(String(stopped.stderr))?.[1];
    expect(resume, String(stopped.stderr)).toBe(`petstore pets add --file ${file} --results ${journal} --resume --concurrency 4`);

    // The command as printed, run by a shell that finds petstore on the same PATH.
    const resumed = await execa('/bin/sh', ['-c', resume as string], { env, extendEnv: false, reject: false, timeout: 60_000 });
    expect(resumed.exitCode, String(resumed.stderr)).toBe(0);
    const list = await sea(['pets', 'list', '--limit', '100', '-o', 'json']);
    const counts = new Map<string, number>();
    for (const p of JSON.parse(list.stdout) as { name: string }[]) counts.set(p.name, (counts.get(p.name) ?? 0) + 1);
    expect(records.filter((r) => counts.get(r.name) !== 1).map((r) => `${r.name}×${counts.get(r.name) ?? 0}`)).toEqual([]);
  });

  it('the documented exit codes: 2 for a bad flag (nothing sent), 4 for a 401, 5 for a 404', async () => {
    const bad = await sea(['pets', 'list', '--limit', 'many']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/^error: .*--limit/m);
    const unauthorized = await sea(['pets', 'list'], { env: { PETSTORE_API_KEY: 'sk_wrong_key_0000000000000000' } });
    expect(unauthorized.exitCode, unauthorized.stderr).toBe(4);
    const missing = await sea(['pets', 'get', '999999999']);
    expect(missing.exitCode, missing.stderr).toBe(5);
  });
});

describe.skipIf(missingTool('gnome-keyring-daemon, dbus-daemon, secret-tool', hasSecretService()))('the single executable and the system keyring', () => {
  it('auth login puts the key in a real Secret Service (the binding the executable carries), and pets list reads it back', async () => {
    const home = join(tmp.dir, 'keyring-home');
    mkdirSync(home);
    const store = await startSecretService(home);
    try {
      const inStore = { HOME: home, DBUS_SESSION_BUS_ADDRESS: store.address, PETSTORE_CONFIG_DIR: join(home, 'config') };
      expect((await sea(['env', 'set', 'kr', baseUrl], { env: inStore })).exitCode).toBe(0);
      const login = await sea(['--env', 'kr', 'auth', 'login'], { input: `${KEY}\n`, env: inStore });
      expect(login.exitCode, login.stderr).toBe(0);
      expect(login.stdout + login.stderr).toContain('the key is in the system keyring');
      expect(store.lookup(`kr (${baseUrl})`)).toBe(KEY);
      expect(readFileSync(join(home, 'config', 'config.json'), 'utf8')).not.toContain(KEY);
      const list = await sea(['--env', 'kr', 'pets', 'list', '-o', 'json'], { env: inStore });
      expect(list.exitCode, list.stderr).toBe(0);
    } finally {
      await store.stop();
    }
  });
});
