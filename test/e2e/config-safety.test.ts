import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliResult } from '../helpers/cli.js';
import { E2E_KEY, e2e, type E2E } from '../helpers/e2e.js';

// Configuration safety (docs/configuration.md, "Configuration safety"): a broken config file is reported with its path and
// left byte for byte as it was; loose permissions are warned about and tightened by auth login; concurrent
// invocations never lose an update.

const STORED_KEY = 'sk_stored_in_the_file_DISTINCT_4x4x';

let t: E2E;
let n = 0;
beforeAll(async () => {
  t = await e2e();
});
afterAll(() => t.close());

function clean(r: CliResult): void {
  for (const secret of [E2E_KEY, STORED_KEY]) {
    expect(r.stdout).not.toContain(secret);
    expect(r.stderr).not.toContain(secret);
  }
}

/** A config folder of its own holding `content` as config.json. */
function folderWith(content: string): { dir: string; file: string; env: Record<string, string> } {
  const dir = join(t.dir, `cfg-${++n}`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, 'config.json');
  writeFileSync(file, content, { mode: 0o600 });
  return { dir, file, env: { PETSTORE_CONFIG_DIR: dir } };
}

const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);

/** Commands that read the config, and ones that would write it. */
const COMMANDS: Array<{ args: string[]; input?: string }> = [
  { args: ['env', 'list'] },
  { args: ['pets', 'list'] },
  { args: ['env', 'show'] },
  { args: ['env', 'set', 'staging', 'https://staging.example.com/v1'] },
  { args: ['env', 'use', 'staging'] },
  { args: ['auth', 'login', '--no-verify'], input: 'sk_new_key_from_stdin_1234\n' },
  { args: ['auth', 'logout'] },
];

const VALID = JSON.stringify({ currentEnv: 'staging', envs: { staging: { baseUrl: 'https://staging.example.com/v1', apiKey: STORED_KEY } } }, null, '\t');

describe('a broken config file', () => {
  it.each([
    ['JSON cut off inside the key', VALID.slice(0, VALID.indexOf(STORED_KEY) + 10), /is not valid JSON \(Unterminated string at line 6 column \d+\)/],
    ['JSON cut off after a colon', '{"currentEnv":', /is not valid JSON \(it ends too early, as if cut off\)/],
    ['a stray character', VALID.replace('"envs"', 'x"envs"'), /is not valid JSON \(.*at line 3 column \d+\)/],
    ['an empty file', '', /is not valid JSON/],
  ])('%s: every command exits 2 naming the file and the fix; the file is unchanged', async (_name, content, problem) => {
    const { file, env } = folderWith(content);
    const before = readFileSync(file);
    t.sb.clearRequests();
    for (const { args, input } of COMMANDS) {
      const r = await t.cli(args, { env, key: null, ...(input !== undefined ? { input } : {}) });
      clean(r);
      expect(r.exitCode, args.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(problem);
      expect(r.stderr).toBe(`${r.stderr.split('\n')[0]}\n`);
      expect(r.stderr).toContain(`error: config file ${file} is not valid JSON`);
      expect(r.stderr).toContain('it was left as it is; fix or move it aside, then run the command again');
      expect(readFileSync(file).equals(before), args.join(' ')).toBe(true);
    }
    expect(t.sb.requests()).toHaveLength(0);
    expect(readdirSync(join(file, '..'))).toEqual(['config.json']);
  });

  it.each([
    ['{"envs":[]}', '"envs" is not an object'],
    ['[]', 'the top level is not an object'],
    ['null', 'the top level is not an object'],
    [`[{"envs":{"staging":{"apiKey":"${STORED_KEY}"}}}]`, 'the top level is not an object'],
    ['{"currentEnv":7}', '"currentEnv" is not a string'],
    ['{"envs":{"staging":{"apiKey":12345}}}', '"envs.staging.apiKey" is not a string'],
    ['{"envs":{"staging":"https://x/v1"}}', '"envs.staging" is not an object'],
  ])('unexpected shape %s: exit 2 naming the file and the problem; the file is unchanged', async (content, problem) => {
    const { file, env } = folderWith(content);
    for (const { args, input } of COMMANDS) {
      const r = await t.cli(args, { env, key: null, ...(input !== undefined ? { input } : {}) });
      clean(r);
      expect(r.exitCode, args.join(' ')).toBe(2);
      expect(r.stderr).toBe(
        `error: config file ${file} has an unexpected shape: ${problem}; it was left as it is; fix or move it aside, then run the command again\n`,
      );
      expect(readFileSync(file, 'utf8')).toBe(content);
    }
  });

  it('a config folder that cannot be made (a file in its path): exit 2 naming the folder and the fix, nothing sent', async () => {
    const file = join(t.dir, `not-a-folder-${++n}`);
    writeFileSync(file, 'x');
    const dir = join(file, 'petstore');
    t.sb.clearRequests();
    for (const { args, input } of COMMANDS) {
      const r = await t.cli(args, { env: { PETSTORE_CONFIG_DIR: dir }, ...(input !== undefined ? { input } : {}) });
      clean(r);
      expect(r.exitCode, args.join(' ')).toBe(2);
      expect(r.stderr).toBe(
        `error: cannot use the config folder ${dir}: a part of the path is not a folder (ENOTDIR); set PETSTORE_CONFIG_DIR to a folder you can write\n`,
      );
    }
    expect(t.sb.requests()).toHaveLength(0);
  });

  it('once fixed (or moved aside), everything works again', async () => {
    const { file, env } = folderWith('{"envs":');
    expect((await t.cli(['env', 'list'], { env })).exitCode).toBe(2);
    writeFileSync(file, VALID);
    const r = await t.cli(['env', 'list', '-o', 'json'], { env });
    clean(r);
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout)).toContainEqual({
      name: 'staging',
      current: true,
      currentSource: 'config',
      baseUrl: 'https://staging.example.com/v1',
      keyStored: true,
    });
  });
});

// Each case has a config folder of its own (folderWith): they run side by side. (The broken-file cases
// above do not: each checks that the shared sandbox received nothing.)
describe.concurrent('permissions', () => {
  it.skipIf(process.platform === 'win32')(
    'a config readable by others is warned about; auth login tightens the file to 0600 and leaves the existing folder alone',
    async () => {
      const { dir, file, env } = folderWith(VALID);
      chmodSync(file, 0o644);
      chmodSync(dir, 0o755);
      const warned = await t.cli(['env', 'list'], { env });
      clean(warned);
      expect(warned.exitCode).toBe(0);
      const lines = warned.stderr
        .trim()
        .split('\n')
        .filter((l) => !l.startsWith('note: ') && !l.startsWith('current: '));
      // A folder others may only read is the user's choice: only the file is warned about.
      expect(lines).toEqual([`warning: ${file} is mode 0644: others may read your API keys. Fix with: chmod 600 ${file}`]);

      const login = await t.cli(['auth', 'login', '--env', 'staging'], { env: { ...env, PETSTORE_BASE_URL: t.sb.baseUrl }, key: null, input: `${E2E_KEY}\n` });
      clean(login);
      expect(login.exitCode).toBe(0);
      expect(mode(file)).toBe('600');
      expect(mode(dir)).toBe('755');

      const quiet = await t.cli(['env', 'list'], { env });
      clean(quiet);
      expect(quiet.stderr).not.toContain('warning');
    },
  );

  it.skipIf(process.platform === 'win32')(
    'a shared folder (1777, as PETSTORE_CONFIG_DIR) keeps its mode; one writable by others without the sticky bit is warned about',
    async () => {
      const { dir, file, env } = folderWith(VALID);
      chmodSync(dir, 0o1777);
      const login = await t.cli(['auth', 'login', '--env', 'staging', '--no-verify'], { env, key: null, input: `${E2E_KEY}\n` });
      clean(login);
      expect(login.exitCode, login.stderr).toBe(0);
      expect(login.stderr).not.toContain('warning');
      expect((statSync(dir).mode & 0o7777).toString(8)).toBe('1777');
      expect(mode(file)).toBe('600');

      chmodSync(dir, 0o777);
      const warned = await t.cli(['env', 'list'], { env });
      expect(warned.stderr).toContain(`warning: ${dir} is mode 0777: others may replace your config file there. Fix with: chmod go-w ${dir}`);
      expect(mode(dir)).toBe('777');
    },
  );

  it.skipIf(process.platform === 'win32')(
    'a folder others may write to, without a config file yet: the chmod named is the folder only, and it runs',
    async () => {
      const dir = join(t.dir, `cfg-${++n}`);
      mkdirSync(dir, { mode: 0o777 });
      chmodSync(dir, 0o777);
      const r = await t.cli(['env', 'list'], { env: { PETSTORE_CONFIG_DIR: dir } });
      clean(r);
      const warning = r.stderr.split('\n').find((l) => l.startsWith('warning: '));
      expect(warning).toBe(`warning: ${dir} is mode 0777: others may replace your config file there. Fix with: chmod go-w ${dir}`);
      // What the warning says to run works: every path it names exists.
      const fix = await execa('sh', ['-c', warning!.split('Fix with: ')[1]!], { reject: false });
      expect(fix.exitCode, fix.stderr).toBe(0);
      expect(mode(dir)).toBe('755');
      expect((await t.cli(['env', 'list'], { env: { PETSTORE_CONFIG_DIR: dir } })).stderr).not.toContain('warning');
    },
  );

  it.skipIf(process.platform === 'win32')('a new config is created 0600 in a 0700 folder', async () => {
    const dir = join(t.dir, 'fresh', 'petstore');
    const r = await t.cli(['env', 'set', 'local', `${t.sb.baseUrl}`], { env: { PETSTORE_CONFIG_DIR: dir } });
    clean(r);
    expect(r.exitCode).toBe(0);
    expect(mode(dir)).toBe('700');
    expect(mode(join(dir, 'config.json'))).toBe('600');
  });
});

describe('concurrent invocations', () => {
  it('16 parallel "env set" + "auth login": every environment and key is stored; no lock or temp file is left', async () => {
    const dir = join(t.dir, 'parallel');
    const env = { PETSTORE_CONFIG_DIR: dir };
    const keyOf = (i: number) => `sk_parallel_${String(i).padStart(2, '0')}_key_zzzz${i}`;
    const results = await Promise.all(
      Array.from({ length: 16 }, async (_, i) => {
        const set = await t.cli(['env', 'set', `e${i}`, t.sb.baseUrl], { env, key: null, timeoutMs: 60_000 });
        const login = await t.cli(['auth', 'login', '--env', `e${i}`, '--no-verify'], { env, key: null, input: `${keyOf(i)}\n`, timeoutMs: 60_000 });
        return { i, set, login };
      }),
    );
    for (const { i, set, login } of results) {
      expect(set.exitCode, set.stderr).toBe(0);
      expect(login.exitCode, login.stderr).toBe(0);
      for (const r of [set, login]) {
        expect(r.stdout + r.stderr).not.toContain(keyOf(i));
      }
    }
    const file = join(dir, 'config.json');
    const data = JSON.parse(readFileSync(file, 'utf8')) as { envs: Record<string, { baseUrl: string; apiKey: string }> };
    for (let i = 0; i < 16; i++) expect(data.envs[`e${i}`]).toEqual({ baseUrl: t.sb.baseUrl, apiKey: keyOf(i) });
    expect(readdirSync(dir)).toEqual(['config.json']);
    expect(mode(file)).toBe('600');

    const list = await t.cli(['env', 'list', '-o', 'json'], { env });
    expect(list.exitCode).toBe(0);
    expect((JSON.parse(list.stdout) as Array<{ name: string; keyStored: boolean }>).filter((e) => e.keyStored)).toHaveLength(16);
  }, 120_000);
});
