// zsh and fish scripts in the real shells. They skip where the shell is not
// installed, except in CI, which installs both (test/helpers/tools.ts).

import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completionScript } from '../../../src/completion/index.js';
import { missingTool } from '../../helpers/tools.js';
import { fishComplete, hasShell, programTree, shellSandbox, zshCompleteReal, zshCompleteStubbed, type Sandbox } from './harness.js';

const program = programTree();
let sb: Sandbox;
beforeAll(() => {
  sb = shellSandbox({ envs: ['mine', 'production', 'staging'] });
});
afterAll(() => sb.cleanup());

function syntaxOk(shell: string, script: string, file: string): void {
  const path = join(sb.dir, file);
  writeFileSync(path, script);
  const r = spawnSync(shell, shell === 'zsh' ? ['-f', '-n', path] : ['--no-config', '-n', path], { encoding: 'utf8' });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
}

describe.skipIf(missingTool('zsh', hasShell('zsh')))('zsh completion', () => {
  const script = completionScript('zsh', program);

  it('parses', () => syntaxOk('zsh', script, '_petstore_syntax'));

  it('completes commands, flags, values and environment names (completion functions stubbed)', () => {
    const got = zshCompleteStubbed(
      script,
      [
        ['petstore', 'pe'],
        ['petstore', 'pets', 'li'],
        ['petstore', 'pets', 'list', '--status', ''],
        ['petstore', 'pets', 'list', '-o', 'j'],
        ['petstore', '--env', ''],
        ['petstore', 'env', 'use', 'm'],
        ['petstore', '--env', 'staging', 'pets', 'list', '--st'],
        ['petstore', 'pets', 'list', '--status=s'],
        ['petstore', 'api', '--input', ''],
        ['petstore', 'completion', ''],
        ['petstore', 'pets', 'get', ''],
      ],
      sb,
    );
    expect(got).toEqual([
      ['pets'],
      ['list'],
      ['available', 'pending', 'sold'],
      ['json'],
      ['mine', 'production', 'staging'],
      ['mine'],
      ['--status'],
      ['sold'],
      ['__files__'],
      ['bash', 'zsh', 'fish', 'powershell'],
      [],
    ]);
  });

  it('works in a real interactive zsh with compinit, autoloaded from $fpath', () => {
    expect(zshCompleteReal(script, 'petstore pets li', sb)).toEqual(['list']);
    expect(zshCompleteReal(script, 'petstore pets l', sb).sort()).toEqual(['list', 'ls']);
    expect(zshCompleteReal(script, 'petstore pets vi', sb)).toEqual(['view']);
    expect(zshCompleteReal(script, 'petstore pets list --status ', sb).sort()).toEqual(['available', 'pending', 'sold']);
    expect(zshCompleteReal(script, 'petstore --env ', sb).sort()).toEqual(['mine', 'production', 'staging']);
  });
});

describe.skipIf(missingTool('fish', hasShell('fish')))('fish completion', () => {
  const script = completionScript('fish', program);

  it('parses', () => syntaxOk('fish', script, 'petstore_syntax.fish'));

  it("completes through fish's own engine (complete -C)", () => {
    const got = fishComplete(
      script,
      [
        'petstore pe',
        'petstore pets li',
        'petstore pets list --status ',
        'petstore pets list -o ',
        'petstore --env ',
        'petstore env use ',
        'petstore --env staging pets list --st',
        'petstore pets list --status=s',
        'petstore completion ',
        'petstore pets get ',
        'petstore api -X P',
        'petstore __',
      ],
      sb,
    );
    expect(got).toEqual([
      ['pets'],
      ['list'],
      ['available', 'pending', 'sold'],
      ['csv', 'json', 'ndjson', 'table'],
      ['mine', 'production', 'staging'],
      ['mine', 'production', 'staging'],
      ['--status'],
      ['--status=sold'],
      ['bash', 'fish', 'powershell', 'zsh'],
      [],
      ['PATCH', 'POST', 'PUT'],
      [],
    ]);
  });

  it('offers the aliases (pets ls/create/view, env ls) and completes after them', () => {
    const got = fishComplete(script, ['petstore pets l', 'petstore pets cr', 'petstore env l', 'petstore pets view -o j'], sb);
    expect(got.map((words) => [...words].sort())).toEqual([['list', 'ls'], ['create'], ['list', 'ls'], ['json']]);
  });

  it('offers every long flag of a command', () => {
    const [flags] = fishComplete(script, ['petstore pets list --'], sb);
    expect(flags).toEqual(expect.arrayContaining(['--limit', '--status', '--output', '--json', '--help', '--env', '--quiet', '--no-color', '--max-wait']));
    expect(flags).not.toContain('--version');
  });
});
