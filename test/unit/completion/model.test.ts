import { Argument, type Command, Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { completionScript, SHELLS, type Shell } from '../../../src/completion/index.js';
import { argumentValues, completionSpec, optionValues } from '../../../src/completion/model.js';
import { programTree } from './harness.js';

/** Every visible command of the tree with its path, walked here independently of the generators. */
function walk(cmd: Command, path: string[] = []): { path: string[]; cmd: Command }[] {
  const out = [{ path, cmd }];
  for (const sub of cmd.commands) {
    if (sub.name().startsWith('__')) continue; // hidden helpers
    out.push(...walk(sub, [...path, sub.name()]));
  }
  return out;
}

function longFlags(cmd: Command): string[] {
  return cmd.options.filter((o) => !o.hidden && o.long).map((o) => o.long!);
}

/** How a long flag is written in each script: a whole word (bash, zsh) or "-l name" (fish). */
function flagToken(shell: Shell, long: string): RegExp {
  const escaped = long.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  if (shell === 'powershell') return new RegExp(`"${escaped}"`); // in the JSON tree the script embeds
  return shell === 'fish' ? new RegExp(` -l ${escaped.slice(2)} `) : new RegExp(`[\\s'|(]${escaped}[\\s'|):]`);
}

describe('generated scripts cover the whole command tree', () => {
  const program = programTree();
  const all = walk(program);

  it('the tree has the commands of this issue', () => {
    const paths = all.map((c) => c.path.join(' '));
    expect(paths).toEqual(expect.arrayContaining(['api', 'completion', 'pets', 'pets list', 'env', 'env use']));
  });

  it.each(SHELLS)('%s: every command and every long flag appears', (shell) => {
    const script = completionScript(shell, program);
    for (const { path, cmd } of all) {
      const quote = shell === 'powershell' ? '"' : "'";
      if (path.length > 0) expect(script, `command ${path.join(' ')}`).toContain(`${quote}${cmd.name()}${quote}`);
      for (const long of longFlags(cmd)) expect(script, `${path.join(' ') || 'petstore'} ${long}`).toMatch(flagToken(shell, long));
    }
  });

  it.each(SHELLS)('%s: hidden commands are not offered', (shell) => {
    const script = completionScript(shell, program);
    expect(script).not.toMatch(/case '__complete'|'__complete'\)|-a '__complete'/); // not a subcommand
    expect(script).toContain("'__complete' 'envs'"); // but called for environment names
  });

  it.each(SHELLS)('%s: a new command or flag changes the script with no generator edit', (shell) => {
    const before = completionScript(shell, program);
    const extended = programTree();
    extended
      .command('zzgroup')
      .description('added by the test')
      .command('zzleaf')
      .addOption(new Option('--zz-flag <mode>', 'mode').choices(['fast', 'slow']))
      .addOption(new Option('--zz-choice <c>').choices(['one', 'two']));
    const after = completionScript(shell, extended);
    expect(before).not.toContain('zzleaf');
    expect(after).toContain('zzgroup');
    expect(after).toContain('zzleaf');
    expect(after).toMatch(flagToken(shell, '--zz-flag'));
    expect(after).toMatch(flagToken(shell, '--zz-choice'));
    expect(after).toMatch(/fast.{1,3}slow/);
    expect(after).toMatch(/one.{1,3}two/);
  });

  it.each(SHELLS)('%s: the script is stable (same tree, same text)', (shell) => {
    expect(completionScript(shell, programTree())).toBe(completionScript(shell, program));
  });

  it('the zsh script starts with #compdef, the bash one registers with complete -F, fish uses complete -c', () => {
    expect(completionScript('zsh', program)).toMatch(/^#compdef petstore\n/);
    expect(completionScript('bash', program)).toMatch(/\ncomplete -F _petstore 'petstore'\n$/);
    expect(completionScript('fish', program)).toMatch(/\ncomplete -c 'petstore' -f\n/);
  });
});

describe('value sources', () => {
  const values = (flags: string, description = '') => optionValues(new Option(flags, description));

  it('knows --env and files', () => {
    expect(values('--env <name>')).toEqual({ kind: 'envs' });
    expect(values('--input <file>')).toEqual({ kind: 'files' });
    expect(values('--file [file]')).toEqual({ kind: 'files' });
  });

  it('reads commander choices (help and checks read the same list)', () => {
    expect(optionValues(new Option('--mode <m>').choices(['a', 'b']))).toEqual({ kind: 'words', words: ['a', 'b'] });
    expect(values('--status <status>', 'a|b')).toEqual({ kind: 'none' });
    expect(values('--limit <n>', 'how many, 1 to 100')).toEqual({ kind: 'none' });
    expect(values('--verbose', 'a|b')).toEqual({ kind: 'none' });
  });

  it('drops words a shell could expand', () => {
    expect(optionValues(new Option('--x <v>').choices(['ok', '$(touch pwned)', 'a b', '`x`']))).toEqual({ kind: 'words', words: ['ok'] });
  });

  it('completes environment names for the first argument of env commands and for arguments named env', () => {
    expect(argumentValues(['env', 'use'], new Argument('<name>'), 0)).toEqual({ kind: 'envs' });
    expect(argumentValues(['env', 'set'], new Argument('<baseUrl>'), 1)).toEqual({ kind: 'none' });
    expect(argumentValues(['x'], new Argument('<env>'), 0)).toEqual({ kind: 'envs' });
    expect(argumentValues(['pets', 'get'], new Argument('<petId>'), 0)).toEqual({ kind: 'none' });
    expect(argumentValues(['completion'], new Argument('<shell>').choices(['bash', 'zsh']), 0)).toEqual({ kind: 'words', words: ['bash', 'zsh'] });
  });

  it('inherits the program flags into every command, own flags first, help per command, version at the top only', () => {
    const spec = completionSpec(programTree());
    const pets = spec.root.subcommands.find((c) => c.name === 'pets')!;
    const list = pets.subcommands.find((c) => c.name === 'list')!;
    const longs = list.flags.map((f) => f.long);
    expect(longs.slice(0, 2)).toEqual(['--limit', '--status']);
    expect(longs).toEqual(expect.arrayContaining(['--output', '--json', '--help', '--env', '--quiet', '--timeout']));
    expect(longs).not.toContain('--version');
    expect(new Set(longs).size).toBe(longs.length);
    expect(list.flags.find((f) => f.long === '--env')).toMatchObject({ takesValue: true, values: { kind: 'envs' } });
    expect(spec.root.flags.map((f) => f.long)).toContain('--version');
  });
});
