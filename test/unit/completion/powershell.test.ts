// The PowerShell script. pwsh installs neither from Debian's packages nor from npm, so no test runs the
// script in PowerShell. What is checked instead: its text (the registration, the tree it embeds, which
// is the completion model's and survives the here-string), and its walker's rules, written again below
// line for line as `walker()`, which over the embedded tree must answer as the bash script does in a
// real bash for the same words.

import { type Command, Option } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completionScript } from '../../../src/completion/index.js';
import { completionSpec, type ValueSource } from '../../../src/completion/model.js';
import { type PowerShellNode, powerShellTree } from '../../../src/completion/powershell.js';
import { bashComplete, programTree, shellSandbox, type Sandbox } from './harness.js';

const program = programTree();
const script = completionScript('powershell', program);
const ENVS = ['mine', 'production', 'staging'];

/** The JSON between the here-string's @' and '@ lines. */
function embeddedTree(text: string): Record<string, PowerShellNode> {
  const m = /\n {4}\$tree = ConvertFrom-Json -InputObject @'\n(.*)\n'@\n/.exec(text);
  expect(m, 'the here-string with the tree').not.toBeNull();
  return JSON.parse(m![1]!) as Record<string, PowerShellNode>;
}

/** The script's walker (the foreach over $words and the choice of $found), in TypeScript. */
function walker(tree: Record<string, PowerShellNode>, words: string[], cur: string): string[] | 'fallback' {
  const values = (source: ValueSource | undefined, prefix: string): string[] => {
    if (source?.kind === 'words') return source.words.filter((w) => w.startsWith(prefix));
    if (source?.kind === 'envs') return ENVS.filter((w) => w.startsWith(prefix));
    return [];
  };
  let path = '';
  let expect: string | undefined;
  let n = 0;
  let dashdash = false;
  for (const w of words) {
    const node = tree[path]!;
    if (expect !== undefined) {
      expect = undefined;
      continue;
    }
    if (!dashdash) {
      if (w === '--') {
        dashdash = true;
        continue;
      }
      if (w.startsWith('-') && w.includes('=')) continue;
      if (w.startsWith('-') && w.length > 1) {
        if (Object.hasOwn(node.values, w)) expect = w;
        continue;
      }
    }
    if (n === 0 && !dashdash && Object.hasOwn(node.children, w)) {
      path = path ? `${path} ${node.children[w]}` : node.children[w]!;
      continue;
    }
    n++;
  }
  const node = tree[path]!;
  let found: string[];
  if (expect !== undefined) found = values(node.values[expect], cur);
  else if (!dashdash && cur.startsWith('-') && cur.includes('=')) {
    const flag = cur.slice(0, cur.indexOf('='));
    found = values(Object.hasOwn(node.values, flag) ? node.values[flag] : undefined, cur.slice(cur.indexOf('=') + 1)).map((v) => `${flag}=${v}`);
  } else if (!dashdash && cur.startsWith('-')) found = node.flags.filter((f) => f.startsWith(cur));
  else if (n === 0 && !dashdash && node.subcommands.length > 0) found = node.subcommands.filter((s) => s.startsWith(cur));
  else {
    const i = node.variadic && n >= node.args.length ? node.args.length - 1 : n;
    found = i < node.args.length ? values(node.args[i], cur) : [];
  }
  // Nothing returned: PowerShell completes paths itself.
  return found.length > 0 ? found : 'fallback';
}

describe('PowerShell completion script', () => {
  it('registers a native completer for petstore, generated from the tree, installable as its header says', () => {
    expect(script).toMatch(/^# PowerShell completion for petstore\n/);
    expect(script).toContain("\nRegister-ArgumentCompleter -Native -CommandName 'petstore' -ScriptBlock {\n");
    expect(script).toContain('petstore completion powershell | Out-String | Invoke-Expression');
    expect(script.trimEnd().endsWith('}')).toBe(true);
    // Environment names come from the CLI at completion time, quietly.
    expect(script).toContain("& 'petstore' '__complete' 'envs' 2>$null");
  });

  it('embeds the completion model of the whole tree, aliases and value lists included', () => {
    const tree = embeddedTree(script);
    expect(tree).toEqual(powerShellTree(completionSpec(program)));
    expect(tree.pets!.children).toMatchObject({ list: 'list', ls: 'list', add: 'add', create: 'add', get: 'get', view: 'get' });
    expect(tree['pets list']!.values['--status']).toEqual({ kind: 'words', words: ['available', 'pending', 'sold'] });
    expect(tree['pets list']!.values['-o']).toEqual({ kind: 'words', words: ['table', 'json', 'ndjson', 'csv'] });
    expect(tree['pets list']!.values['--env']).toEqual({ kind: 'envs' });
    expect(tree['']!.flags).toEqual(expect.arrayContaining(['-V', '--version', '-v', '--verbose']));
    expect(tree['pets list']!.flags).not.toContain('--version');
    expect(Object.keys(tree).some((k) => k.includes('__complete'))).toBe(false);
  });

  it("keeps a description with quotes, $ and '@ intact (the here-string cannot end early)", () => {
    const odd: Command = programTree();
    odd
      .command('zzq')
      .description("it's $HOME\n'@ and `tick`")
      .addOption(new Option('--zz <v>', "mode, '@").choices(['a', 'b']));
    const text = completionScript('powershell', odd);
    expect(text.split('\n').filter((l) => l.startsWith("'@"))).toHaveLength(1);
    expect(embeddedTree(text).zzq!.values['--zz']).toEqual({ kind: 'words', words: ['a', 'b'] });
  });
});

describe("the PowerShell walker's rules over the embedded tree answer as the bash script does (real bash)", () => {
  let sb: Sandbox;
  beforeAll(() => {
    sb = shellSandbox({ envs: ENVS });
  });
  afterAll(() => sb.cleanup());

  const lines = [
    ['petstore', 'pe'],
    ['petstore', 'pets', 'l'],
    ['petstore', 'pets', 'ls', '--st'],
    ['petstore', 'pets', 'view', '-o', 'j'],
    ['petstore', 'pets', 'list', '--status', ''],
    ['petstore', 'pets', 'list', '--status=s'],
    ['petstore', '--env', 'staging', 'pets', 'li'],
    ['petstore', '--timeout', '5', '-q', 'pets', 'list', '--limit', '5', '--st'],
    ['petstore', 'pets', 'list', '--env', 's'],
    ['petstore', 'env', 'use', ''],
    ['petstore', 'env', 'l'],
    ['petstore', 'api', '-X', 'P'],
    ['petstore', 'completion', ''],
    ['petstore', '-'],
    ['petstore', 'pets', 'get', '-'],
    ['petstore', '--', 'pe'],
    ['petstore', '__'],
  ];

  it('for each line, the same candidates', () => {
    const tree = embeddedTree(script);
    const bash = bashComplete(completionScript('bash', program), lines, sb);
    const ps = lines.map((words) => {
      const got = walker(tree, words.slice(1, -1), words.at(-1)!);
      return got === 'fallback' ? [] : got;
    });
    expect(ps.map((w) => [...w].sort())).toEqual(bash.map((w) => [...w].sort()));
    expect(ps.flat().length).toBeGreaterThan(40);
  });
});
