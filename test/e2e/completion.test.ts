// The completion scripts of the built CLI, run by real shells; environment
// names come from the built CLI itself (`petstore __complete envs`).

import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, runCli, tempDir } from '../helpers/cli.js';
import { missingTool } from '../helpers/tools.js';
import { bashComplete, fishComplete, hasShell, shellSandbox, shQuote, zshCompleteReal, type Sandbox } from '../unit/completion/harness.js';

const tmp = tempDir();
const configDir = join(tmp.dir, 'petstore');
let sb: Sandbox;
const env = { PETSTORE_CONFIG_DIR: configDir };
const scripts: Record<string, string> = {};

beforeAll(async () => {
  // `petstore` on PATH is the built CLI on this Node.
  sb = shellSandbox({ exec: `exec ${shQuote(process.execPath)} ${shQuote(BIN)} "$@"` });
  for (const shell of ['bash', 'zsh', 'fish']) {
    const r = await runCli(['completion', shell], { configDir: tmp.dir });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe('');
    scripts[shell] = r.stdout;
  }
  const set = await runCli(['env', 'set', 'mylab', 'http://127.0.0.1:9/v1'], { configDir: tmp.dir });
  expect(set.exitCode, set.stderr).toBe(0);
});
afterAll(() => {
  sb.cleanup();
  tmp.cleanup();
});

describe('bash completion of the built CLI (real bash)', () => {
  it('completes commands, subcommands, --status values and environment names, including one added with env set', () => {
    const got = bashComplete(
      scripts.bash!,
      [
        ['petstore', 'pe'],
        ['petstore', 'pets', 'li'],
        ['petstore', 'pets', 'list', '--status', ''],
        ['petstore', '--env', ''],
        ['petstore', 'env', 'use', 'my'],
        ['petstore', 'pets', 'list', '-o', ''],
      ],
      sb,
      env,
    );
    expect(got).toEqual([
      ['pets'],
      ['list'],
      ['available', 'pending', 'sold'],
      ['mylab', 'production', 'staging'],
      ['mylab'],
      ['table', 'json', 'ndjson', 'csv'],
    ]);
  });

  it('a broken config file only means the built-in names, with no noise', () => {
    const broken = join(tmp.dir, 'broken');
    mkdirSync(broken, { recursive: true });
    writeFileSync(join(broken, 'config.json'), '{ not json');
    expect(bashComplete(scripts.bash!, [['petstore', '--env', '']], sb, { PETSTORE_CONFIG_DIR: broken })).toEqual([['production', 'staging']]);
  });
});

describe.skipIf(missingTool('fish', hasShell('fish')))('fish completion of the built CLI', () => {
  it('completes environment names from the CLI', () => {
    expect(fishComplete(scripts.fish!, ['petstore pets li', 'petstore --env ', 'petstore env use '], sb, env)).toEqual([
      ['list'],
      ['mylab', 'production', 'staging'],
      ['mylab', 'production', 'staging'],
    ]);
  });
});

describe.skipIf(missingTool('zsh', hasShell('zsh')))('zsh completion of the built CLI', () => {
  it('completes environment names from the CLI in an interactive zsh', () => {
    expect(zshCompleteReal(scripts.zsh!, 'petstore --env ', sb, env).sort()).toEqual(['mylab', 'production', 'staging']);
  });
});

// The scripts' own part (passing the words, showing the answer, files, "=") in each real shell; which
// candidates there are is test/unit/completion/candidates.test.ts's part.
describe('the scripts in real shells, asking the built CLI', () => {
  it('bash: --flag=value split by COMP_WORDBREAKS or not, file names (quoted), after --, nothing known', () => {
    writeFileSync(join(sb.dir, 'my pets.csv'), '');
    const got = bashComplete(
      scripts.bash!,
      [
        ['petstore', 'pets', 'list', '--status', '=', 's'],
        ['petstore', 'pets', 'list', '--status', '='],
        ['petstore', 'pets', 'list', '--status=s'],
        ['petstore', 'pets', 'list', '--status=available', '--li'],
        ['petstore', 'api', '--input', 'my'],
        ['petstore', '--', 'pe'],
        ['petstore', 'pets', 'get', ''],
        ['petstore', 'pets', 'l'],
      ],
      sb,
      env,
    );
    expect(got).toEqual([['sold'], [], ['--status=sold'], ['--limit', '--limiter'], ['my pets.csv'], [], [], ['list', 'ls']]);
  });

  it.skipIf(missingTool('fish', hasShell('fish')))('fish: values, --flag=value, aliases, flags, files, nothing hidden', () => {
    writeFileSync(join(sb.dir, 'seed-pets.csv'), '');
    const got = fishComplete(
      scripts.fish!,
      [
        'petstore pets list --status ',
        'petstore pets list -o ',
        'petstore --env staging pets list --st',
        'petstore pets list --status=s',
        'petstore api -X P',
        'petstore pets view -o j',
        'petstore pets get ',
        'petstore __',
        'petstore api --input seed-',
      ],
      sb,
      env,
    );
    expect(got.map((words) => [...words].sort())).toEqual([
      ['available', 'pending', 'sold'],
      ['csv', 'json', 'ndjson', 'table'],
      ['--status'],
      ['--status=sold'],
      ['PATCH', 'POST', 'PUT'],
      ['json'],
      [],
      [],
      ['seed-pets.csv'],
    ]);
  });

  it.skipIf(missingTool('zsh', hasShell('zsh')))('zsh: subcommands with aliases, values, --flag=value', () => {
    expect(zshCompleteReal(scripts.zsh!, 'petstore pets li', sb, env)).toEqual(['list']);
    expect(zshCompleteReal(scripts.zsh!, 'petstore pets l', sb, env).sort()).toEqual(['list', 'ls']);
    expect(zshCompleteReal(scripts.zsh!, 'petstore pets list --status ', sb, env).sort()).toEqual(['available', 'pending', 'sold']);
    expect(zshCompleteReal(scripts.zsh!, 'petstore pets list --status=s', sb, env)).toEqual(['sold']);
  });

  it.each(['bash', 'zsh', 'fish'])('%s: the script parses', (shell) => {
    if (shell !== 'bash' && !hasShell(shell)) return;
    const file = join(sb.dir, `syntax.${shell}`);
    writeFileSync(file, scripts[shell]!);
    const r = spawnSync(shell, shell === 'fish' ? ['--no-config', '-n', file] : ['-n', file], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
});
