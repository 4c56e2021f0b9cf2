// The bash script run by a real bash, as bash runs it on <TAB> (must run: bash is everywhere the tests run).

import { type Command, Option } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completionScript } from '../../../src/completion/index.js';
import { bashComplete, programTree, shellSandbox, type Sandbox } from './harness.js';

let sb: Sandbox;
const program = programTree();
const script = completionScript('bash', program);

beforeAll(() => {
  sb = shellSandbox({ envs: ['mine', 'production', 'staging'] });
});
afterAll(() => sb.cleanup());

const complete = (...lines: string[][]) => bashComplete(script, lines, sb);
const one = (...words: string[]) => complete(words)[0];

function visible(cmd: Command): Command[] {
  return cmd.commands.filter((c) => !c.name().startsWith('__'));
}

describe('bash completion (real bash)', () => {
  it('completes commands and subcommands', () => {
    expect(one('petstore', 'pe')).toEqual(['pets']);
    expect(one('petstore', 'pets', 'li')).toEqual(['list']);
    expect(one('petstore', 'env', 'u')).toEqual(['use']);
    expect(one('petstore', 'co')).toEqual(['completion']);
    expect(one('petstore', 'a')?.sort()).toEqual(['api', 'auth']);
  });

  it('offers every visible top-level command on an empty word, never the hidden ones', () => {
    const got = one('petstore', '')!;
    expect(got).toEqual(expect.arrayContaining(visible(program).map((c) => c.name())));
    expect(got.some((w) => w.startsWith('__'))).toBe(false);
    expect(one('petstore', '__')).toEqual([]);
  });

  it('completes --status values, --output formats, -X methods and completion shells', () => {
    expect(one('petstore', 'pets', 'list', '--status', '')).toEqual(['available', 'pending', 'sold']);
    expect(one('petstore', 'pets', 'list', '--status', 'p')).toEqual(['pending']);
    expect(one('petstore', 'pets', 'add', '--name', 'Rex', '--status', 's')).toEqual(['sold']);
    expect(one('petstore', 'pets', 'list', '-o', '')).toEqual(['table', 'json', 'ndjson', 'csv']);
    expect(one('petstore', 'pets', 'list', '--output', 'nd')).toEqual(['ndjson']);
    expect(one('petstore', 'api', '-X', 'P')).toEqual(['POST', 'PUT', 'PATCH']);
    expect(one('petstore', 'completion', '')).toEqual(['bash', 'zsh', 'fish', 'powershell']);
  });

  it('completes environment names from the CLI at completion time', () => {
    expect(one('petstore', '--env', '')).toEqual(['mine', 'production', 'staging']);
    expect(one('petstore', '--env', 'm')).toEqual(['mine']);
    expect(one('petstore', 'pets', 'list', '--env', 's')).toEqual(['staging']);
    expect(one('petstore', 'env', 'use', '')).toEqual(['mine', 'production', 'staging']);
    expect(one('petstore', 'env', 'remove', '')).toEqual(['mine', 'production', 'staging']);
    expect(one('petstore', 'env', 'remove', 'm')).toEqual(['mine']);
  });

  it('skips flag values while finding the command', () => {
    expect(one('petstore', '--env', 'staging', 'pets', 'li')).toEqual(['list']);
    expect(one('petstore', '--timeout', '5', '-q', 'pets', 'list', '--limit', '5', '--st')).toEqual(['--status']);
    expect(one('petstore', 'pets', 'list', '--limit', 'list', '--status', 'a')).toEqual(['available']);
  });

  it('handles --flag=value, split at "=" by COMP_WORDBREAKS or not', () => {
    expect(one('petstore', 'pets', 'list', '--status', '=', 's')).toEqual(['sold']);
    expect(one('petstore', 'pets', 'list', '--status=s')).toEqual(['--status=sold']);
    expect(one('petstore', 'pets', 'list', '--status=available', '--li')).toEqual(['--limit', '--limiter']);
  });

  it('completes file names for --input', () => {
    expect(one('petstore', 'api', '--input', '')).toEqual(expect.arrayContaining(['bin', 'petstore.bash']));
    expect(one('petstore', 'api', '--input', 'pet')).toEqual(['petstore.bash']);
  });

  it('offers nothing where nothing is known', () => {
    expect(one('petstore', 'pets', 'get', '')).toEqual([]);
    expect(one('petstore', 'pets', 'get', '42', '')).toEqual([]);
    expect(one('petstore', 'pets', 'list', '--limit', '')).toEqual([]);
    expect(one('petstore', '--', 'pe')).toEqual([]);
    expect(one('petstore', 'nosuch', '')).toEqual([]);
  });

  it('offers exactly the flags of each command: its own, the inherited global ones, and --help', () => {
    const lines: string[][] = [];
    const expected: string[][] = [];
    const walk = (cmd: Command, path: string[], inherited: string[]) => {
      const own = cmd.options.filter((o) => !o.hidden && o.long).map((o) => o.long!);
      lines.push(['petstore', ...path, '--']);
      expected.push([...new Set([...own, '--help', ...inherited])].sort());
      const passDown = [...new Set([...own, ...inherited])].filter((l) => l !== '--version' && l !== '--help');
      for (const sub of visible(cmd)) walk(sub, [...path, sub.name()], passDown);
    };
    walk(program, [], []);
    const got = complete(...lines).map((words) => [...new Set(words)].sort());
    expect(got).toEqual(expected);
    expect(lines.length).toBeGreaterThan(10);
  });

  it('completes the aliases (pets ls/create/view, env ls) as their commands; -V at the top only, -v (--verbose) everywhere', () => {
    expect(one('petstore', 'pets', 'l')?.sort()).toEqual(['list', 'ls']);
    expect(one('petstore', 'pets', 'cr')).toEqual(['create']);
    expect(one('petstore', 'pets', 'vi')).toEqual(['view']);
    expect(one('petstore', 'env', 'l')?.sort()).toEqual(['list', 'ls']);
    expect(one('petstore', 'pets', 'ls', '--st')).toEqual(['--status']);
    expect(one('petstore', 'pets', 'view', '-o', 'j')).toEqual(['json']);
    expect(one('petstore', '-')).toEqual(expect.arrayContaining(['-V', '-v', '-q', '-h']));
    const leaf = one('petstore', 'pets', 'view', '-')!;
    expect(leaf).toEqual(expect.arrayContaining(['-v', '-o', '-h']));
    expect(leaf).not.toContain('-V');
  });

  it('short flags complete too', () => {
    expect(one('petstore', 'api', '-')).toEqual(expect.arrayContaining(['-X', '-d', '-H', '-i', '-h', '-q']));
  });

  it('offers no environment names, and no error, when the CLI cannot tell them', () => {
    const broken = shellSandbox({ exec: 'echo "error: config file is broken" >&2\nexit 2' });
    try {
      expect(bashComplete(script, [['petstore', '--env', '']], broken)).toEqual([[]]);
    } finally {
      broken.cleanup();
    }
  });

  it('follows a command added to the tree, with its alias, flags and values', () => {
    const extended = programTree();
    extended
      .command('zzgroup')
      .alias('zg')
      .command('zzleaf')
      .argument('<env>')
      .addOption(new Option('--zz-flag <mode>', 'mode').choices(['fast', 'slow']));
    const s = completionScript('bash', extended);
    const got = bashComplete(
      s,
      [
        ['petstore', 'zz'],
        ['petstore', 'zg', 'zz'],
        ['petstore', 'zzgroup', 'zzleaf', '--zz-flag', ''],
        ['petstore', 'zzgroup', 'zzleaf', '--zz'],
        ['petstore', 'zzgroup', 'zzleaf', 'st'],
      ],
      sb,
    );
    expect(got).toEqual([['zzgroup'], ['zzleaf'], ['fast', 'slow'], ['--zz-flag'], ['staging']]);
  });
});
