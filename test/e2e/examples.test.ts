// Every example of every help text (the program, each group and command), read from the help itself,
// runs as written with bash against a sandbox and succeeds: `petstore` on PATH, a config with
// production, staging and local on the sandbox, a key stored for the first two, and the files the examples name in
// the working folder. Each example gets its own copy of that setup, so one that changes the config
// (env set, auth logout) cannot break another. A command added later is covered without editing this.
import { chmodSync, cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli.js';
import { QUERY_EXAMPLES } from '../../src/help/topics.js';
import { startSandbox } from '../helpers/sandbox.js';
import type { SandboxHandle } from '../../src/sandbox/server.js';
import { tempDir } from '../helpers/cli.js';
import { runInProcess } from '../helpers/inprocess.js';
import { petstoreOnPath } from '../helpers/seeding.js';

const KEY = 'sk_examples_key_5f0c2a9e7b31';

/** Examples not run, each with why: keep this list short. */
const EXCLUDED: Record<string, string> = {
  'petstore sandbox --port 0': 'the sandbox runs until stopped (its own tests start it)',
  'petstore sandbox --key test-key-1 --per-minute 5 --window 3s': 'the sandbox runs until stopped',
  'petstore sandbox --data ./pets.json --first-id 9007199254740993': 'the sandbox runs until stopped',
};

function commandPaths(cmd: Command, path: string[] = []): string[][] {
  const visible = cmd.commands.filter((c) => c.name() !== 'help' && !c.name().startsWith('__'));
  return [path, ...visible.flatMap((c) => commandPaths(c, [...path, c.name()]))];
}

async function examplesOf(path: string[]): Promise<string[]> {
  const { stdout } = await runInProcess([...path, '--help']);
  const block = stdout.split('\nExamples:\n')[1] ?? '';
  return block
    .trimEnd()
    .split('\n')
    .filter((l) => l.startsWith('  $ '))
    .map((l) => l.slice(4));
}

let sb: SandboxHandle;
const tmp = tempDir('petstore-examples-');
const template = join(tmp.dir, 'template');
const pathDir = petstoreOnPath(tmp.dir);
let runs = 0;

function env(home: string): Record<string, string> {
  return {
    PATH: `${pathDir}:${process.env.PATH}`,
    HOME: home,
    PETSTORE_CONFIG_DIR: join(home, 'config'),
    PETSTORE_STATE_DIR: join(home, 'state'),
    KEY,
    STAGING_KEY: KEY,
  };
}

/** Runs `script` with bash in a fresh copy of the template home (also its working folder); stdin carries the key. */
async function inFreshHome(script: string) {
  const home = join(tmp.dir, `run-${runs++}`);
  cpSync(template, home, { recursive: true });
  // A copied folder gets the default mode; the config's own is private (else every command warns).
  chmodSync(join(home, 'config'), 0o700);
  const r = await execa('bash', ['-c', `set -o pipefail\n${script}`], {
    cwd: home,
    env: env(home),
    extendEnv: false,
    reject: false,
    input: `${KEY}\n`,
    timeout: 20_000,
  });
  return { exitCode: r.exitCode, stdout: String(r.stdout), stderr: String(r.stderr) };
}

beforeAll(async () => {
  // The pets the examples name (42, and an id above 2^53), in the sandbox's data file.
  const data = join(tmp.dir, 'sandbox-data.json');
  writeFileSync(
    data,
    '{"version":1,"pets":[{"id":42,"name":"Rex","categoryId":1,"status":"available"},{"id":9007199254740993,"name":"Tom","categoryId":2,"status":"sold"}]}\n',
  );
  sb = await startSandbox({ keys: [KEY], perMinute: 100_000, perDay: 10_000_000, dataFile: data });
  mkdirSync(join(template, '.local/share/bash-completion/completions'), { recursive: true });
  mkdirSync(join(template, '.config/fish/completions'), { recursive: true });
  mkdirSync(join(template, '.config/powershell'), { recursive: true });
  writeFileSync(join(template, 'pets.csv'), 'name,categoryId,status\nRex,1,available\nTom,2,sold\n');
  writeFileSync(join(template, 'pets.ndjson'), '{"name":"Rex","categoryId":1}\n{"name":"Tom","categoryId":2,"status":"pending"}\n');
  writeFileSync(join(template, 'pet.json'), '{"name":"Rex","categoryId":1}\n');
  writeFileSync(join(template, 'key.txt'), `${KEY}\n`);
  // The config every example starts from; a first request leaves last-seen quota values (quota --cached).
  const setup = await execa(
    'bash',
    [
      '-ec',
      `petstore env set production ${sb.baseUrl}
petstore env set staging ${sb.baseUrl}
petstore env set local ${sb.baseUrl}
echo "$KEY" | petstore auth login --env production
echo "$KEY" | petstore auth login --env staging
petstore --env staging pets list > /dev/null`,
    ],
    { cwd: template, env: env(template), extendEnv: false, reject: false },
  );
  expect(setup.exitCode, String(setup.stderr)).toBe(0);
});

afterAll(async () => {
  await sb?.close();
  tmp.cleanup();
});

const paths = commandPaths(buildProgram({ lazy: () => async () => {} }));
const all = (await Promise.all(paths.map(async (path) => (await examplesOf(path)).map((example) => [path.join(' ') || '(program)', example] as const)))).flat();

describe('every help example runs and succeeds (exit 0)', () => {
  it('finds the examples of every command, and excludes only ones that exist', () => {
    expect(all.length).toBeGreaterThan(30);
    for (const example of Object.keys(EXCLUDED)) expect(all.map(([, e]) => e)).toContain(example);
  });

  it.concurrent.each(all.filter(([, example]) => !(example in EXCLUDED)))('%s: %s', async (_command, example) => {
    const r = await inFreshHome(example);
    expect(r.exitCode, `${example}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`).toBe(0);
  });

  it.concurrent.each(QUERY_EXAMPLES)('help formatting: %s prints what it selects', async (example) => {
    const r = await inFreshHome(example);
    expect(r.exitCode, `${example}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`).toBe(0);
    expect(r.stdout).toMatch(/^(Rex(\n|$)|id,name\n42,Rex\n|\d+$)/);
  });
});
