// `petstore __complete -- <words...>` in-process: the candidates every shell script shows, read from the
// command tree. The scripts themselves run in real shells in test/e2e/completion.test.ts.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Command, Option } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../../src/cli.js';
import { candidates } from '../../../src/completion/candidates.js';
import { runInProcess } from '../../helpers/inprocess.js';
import { tempConfigDir } from '../../helpers/mock-api.js';

let cfg: ReturnType<typeof tempConfigDir>;
beforeAll(() => {
  cfg = tempConfigDir();
  mkdirSync(cfg.dir, { recursive: true, mode: 0o700 });
  writeFileSync(join(cfg.dir, 'config.json'), JSON.stringify({ envs: { mine: { baseUrl: 'http://127.0.0.1:9/v1' } } }), { mode: 0o600 });
});
afterAll(() => cfg.cleanup());

const program = buildProgram({ lazy: () => async () => {} });

/** The lines `__complete` prints for the words after `petstore` (the last is the one being completed). */
async function lines(...words: string[]): Promise<string[]> {
  const r = await runInProcess(['__complete', '--', ...words], { env: { PETSTORE_CONFIG_DIR: cfg.dir } });
  expect(r.stderr).toBe('');
  expect(r.exitCode).toBe(0);
  return r.stdout.split('\n').filter((l) => l !== '');
}

const one = async (...words: string[]) => (await lines(...words)).map((l) => l.replace(/\t.*/, ''));

function visible(cmd: Command): Command[] {
  return cmd.commands.filter((c) => !c.name().startsWith('__'));
}

describe('petstore __complete', () => {
  it('completes commands and subcommands, with their descriptions', async () => {
    expect(await one('pe')).toEqual(['pets']);
    expect(await one('pets', 'li')).toEqual(['list']);
    expect(await one('env', 'u')).toEqual(['use']);
    expect(await one('co')).toEqual(['completion']);
    expect((await one('a')).sort()).toEqual(['api', 'auth']);
    expect(await lines('pets', 'li')).toEqual(['list\tlist pets (GET /pets)']);
  });

  it('offers every visible top-level command on an empty word, never the hidden ones', async () => {
    const got = await one('');
    expect(got).toEqual(expect.arrayContaining(visible(program).map((c) => c.name())));
    expect(got.some((w) => w.startsWith('__'))).toBe(false);
    expect(await one('__')).toEqual([]);
  });

  it('completes --status values, --output formats, -X methods and completion shells', async () => {
    expect(await one('pets', 'list', '--status', '')).toEqual(['available', 'pending', 'sold']);
    expect(await one('pets', 'list', '--status', 'p')).toEqual(['pending']);
    expect(await one('pets', 'add', '--name', 'Rex', '--status', 's')).toEqual(['sold']);
    expect(await one('pets', 'list', '-o', '')).toEqual(['table', 'json', 'ndjson', 'csv']);
    expect(await one('pets', 'list', '--output', 'nd')).toEqual(['ndjson']);
    expect(await one('api', '-X', 'P')).toEqual(['POST', 'PUT', 'PATCH']);
    expect(await one('completion', '')).toEqual(['bash', 'zsh', 'fish', 'powershell']);
  });

  it('completes environment names from the config', async () => {
    expect(await one('--env', '')).toEqual(['mine', 'production', 'staging']);
    expect(await one('--env', 'm')).toEqual(['mine']);
    expect(await one('pets', 'list', '--env', 's')).toEqual(['staging']);
    expect(await one('env', 'use', '')).toEqual(['mine', 'production', 'staging']);
    expect(await one('env', 'remove', 'm')).toEqual(['mine']);
    expect(await one('env', 'set', 'mine', '')).toEqual([]);
  });

  it('skips flag values while finding the command', async () => {
    expect(await one('--env', 'staging', 'pets', 'li')).toEqual(['list']);
    expect(await one('--timeout', '5', '-q', 'pets', 'list', '--limit', '5', '--st')).toEqual(['--status']);
    expect(await one('pets', 'list', '--limit', 'list', '--status', 'a')).toEqual(['available']);
  });

  it('handles --flag=value, split at "=" (bash with "=" in COMP_WORDBREAKS) or not', async () => {
    expect(await one('pets', 'list', '--status', '=', 's')).toEqual(['sold']);
    expect(await one('pets', 'list', '--status', '=')).toEqual([]);
    expect(await one('pets', 'list', '--status=s')).toEqual(['--status=sold']);
    expect(await one('pets', 'list', '--status=available', '--li')).toEqual(['--limit', '--limiter']);
  });

  it('leaves file names to the shell for --input', async () => {
    expect(await lines('api', '--input', '')).toEqual([':files']);
  });

  it('offers nothing where nothing is known', async () => {
    expect(await one('pets', 'get', '')).toEqual([]);
    expect(await one('pets', 'get', '42', '')).toEqual([]);
    expect(await one('pets', 'list', '--limit', '')).toEqual([]);
    expect(await one('--', 'pe')).toEqual([]);
    expect(await one('pets', 'list', '--', '--st')).toEqual([]);
    expect(await one('nosuch', '')).toEqual([]);
  });

  it('offers exactly the flags of each command: its own, the inherited global ones, and --help', async () => {
    const cases: [string[], string[]][] = [];
    const walk = (cmd: Command, path: string[], inherited: string[]) => {
      const own = cmd.options.filter((o) => !o.hidden && o.long).map((o) => o.long!);
      cases.push([path, [...new Set([...own, '--help', ...inherited])].sort()]);
      const passDown = [...new Set([...own, ...inherited])].filter((l) => l !== '--version' && l !== '--help');
      for (const sub of visible(cmd)) walk(sub, [...path, sub.name()], passDown);
    };
    walk(program, [], []);
    expect(cases.length).toBeGreaterThan(10);
    for (const [path, expected] of cases) expect([...new Set(await one(...path, '--'))].sort(), path.join(' ')).toEqual(expected);
  });

  it('completes the aliases (pets ls/create/view, env ls) as their commands; -V at the top only, -v (--verbose) everywhere', async () => {
    expect((await one('pets', 'l')).sort()).toEqual(['list', 'ls']);
    expect(await one('pets', 'cr')).toEqual(['create']);
    expect(await one('pets', 'vi')).toEqual(['view']);
    expect((await one('env', 'l')).sort()).toEqual(['list', 'ls']);
    expect(await one('pets', 'ls', '--st')).toEqual(['--status']);
    expect(await one('pets', 'view', '-o', 'j')).toEqual(['json']);
    expect(await one('-')).toEqual(expect.arrayContaining(['-V', '-v', '-q', '-h']));
    const leaf = await one('pets', 'view', '-');
    expect(leaf).toEqual(expect.arrayContaining(['-v', '-o', '-h']));
    expect(leaf).not.toContain('-V');
    expect(await one('api', '-')).toEqual(expect.arrayContaining(['-X', '-d', '-H', '-i', '-h', '-q']));
  });

  it('reads words that look like its own or the program flags as words (-V, -h, --env)', async () => {
    expect(await one('-V', 'pets', 'li')).toEqual(['list']);
    expect(await one('-h', 'pe')).toEqual(['pets']);
    expect(await one('--help')).toEqual(['--help']);
  });

  it('is quiet, exits 0 and offers the built-in names when the config is broken', async () => {
    const broken = tempConfigDir();
    try {
      mkdirSync(broken.dir, { recursive: true, mode: 0o700 });
      writeFileSync(join(broken.dir, 'config.json'), '{ not json', { mode: 0o600 });
      const r = await runInProcess(['__complete', '--', '--env', ''], { env: { PETSTORE_CONFIG_DIR: broken.dir } });
      expect(r).toEqual({ stdout: 'production\nstaging\n', stderr: '', exitCode: 0 });
    } finally {
      broken.cleanup();
    }
  });

  it('follows a command added to the tree, with its alias, flags and values', async () => {
    const extended = buildProgram({ lazy: () => async () => {} });
    extended
      .command('zzgroup')
      .alias('zg')
      .command('zzleaf')
      .argument('<env>')
      .addOption(new Option('--zz-flag <mode>', 'mode').choices(['fast', 'slow']));
    const got = (words: string[]) => candidates(extended, words, async () => ['production', 'staging']);
    expect(await got(['zz'])).toEqual(['zzgroup\t']);
    expect(await got(['zg', 'zz'])).toEqual(['zzleaf\t']);
    expect(await got(['zzgroup', 'zzleaf', '--zz-flag', ''])).toEqual(['fast', 'slow']);
    expect(await got(['zzgroup', 'zzleaf', '--zz'])).toEqual(['--zz-flag\tmode']);
    expect(await got(['zzgroup', 'zzleaf', 'st'])).toEqual(['staging']);
  });
});
