// The completion scripts of the built CLI, run by real shells; environment
// names come from the built CLI itself (`petstore __complete envs`).

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shQuote } from '../../src/completion/model.js';
import { BIN, runCli, tempDir } from '../helpers/cli.js';
import { missingTool } from '../helpers/tools.js';
import { bashComplete, fishComplete, hasShell, shellSandbox, zshCompleteReal, type Sandbox } from '../unit/completion/harness.js';

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
