import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { completionScript, SHELLS } from '../../../src/completion/index.js';
import { runInProcess } from '../../helpers/inprocess.js';
import { tempConfigDir } from '../../helpers/mock-api.js';

let cfg: ReturnType<typeof tempConfigDir>;
beforeEach(() => {
  cfg = tempConfigDir();
});
afterEach(() => cfg.cleanup());

const run = (args: string[]) => runInProcess(args, { env: { PETSTORE_CONFIG_DIR: cfg.dir } });

function writeConfig(text: string): void {
  mkdirSync(cfg.dir, { recursive: true, mode: 0o700 });
  writeFileSync(join(cfg.dir, 'config.json'), text, { mode: 0o600 });
}

describe('petstore completion <shell>', () => {
  it.each(SHELLS)('%s: prints the script that asks `petstore __complete` on each Tab', async (shell) => {
    const r = await run(['completion', shell]);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(completionScript(shell, 'petstore'));
    expect(r.stdout).toContain('__complete');
  });

  it('refuses other shells with exit 2, naming the choices', async () => {
    const r = await run(['completion', 'tcsh']);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/bash, zsh, fish, powershell/);
    expect((await run(['completion'])).exitCode).toBe(2);
  });

  it('--help shows install examples for every shell', async () => {
    const r = await run(['completion', '--help']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain('Usage: petstore completion [options] <shell>');
    expect(r.stdout).toContain('Examples:');
    for (const shell of SHELLS) expect(r.stdout).toContain(`petstore completion ${shell}`);
  });

  it('the hidden helper is not listed in the help', async () => {
    const r = await run(['--help']);
    expect(r.stdout).toContain('completion');
    expect(r.stdout).not.toContain('__complete');
  });
});

describe('petstore __complete -- --env <word>: environment names', () => {
  const envs = () => run(['__complete', '--', '--env', '']);

  it('prints the built-in environments when there is no config, without creating the folder', async () => {
    expect(await envs()).toEqual({ stdout: 'production\nstaging\n', stderr: '', exitCode: 0 });
    expect(existsSync(cfg.dir)).toBe(false);
  });

  it('adds the environments of the config file, sorted, never a key', async () => {
    writeConfig(
      JSON.stringify({
        currentEnv: 'local',
        envs: { local: { baseUrl: 'http://127.0.0.1:8080/v1', apiKey: 'sk_secret_1234567890' }, qa: { baseUrl: 'https://qa.example.com/v1' } },
      }),
    );
    expect(await envs()).toEqual({ stdout: 'local\nproduction\nqa\nstaging\n', stderr: '', exitCode: 0 });
  });

  it('leaves out names a shell could expand', async () => {
    writeConfig(JSON.stringify({ envs: { ok: {}, '$(touch pwned)': {}, 'a b': {} } }));
    expect((await envs()).stdout).toBe('ok\nproduction\nstaging\n');
  });

  it('is quiet and exits 0 when the config is broken or loose', async () => {
    writeConfig('{ not json');
    expect(await envs()).toEqual({ stdout: 'production\nstaging\n', stderr: '', exitCode: 0 });
    writeConfig('{"envs": []}');
    expect(await envs()).toEqual({ stdout: 'production\nstaging\n', stderr: '', exitCode: 0 });
    writeConfig(JSON.stringify({ envs: { qa: {} } }));
    chmodSync(cfg.dir, 0o755);
    chmodSync(join(cfg.dir, 'config.json'), 0o644);
    expect(await envs()).toEqual({ stdout: 'production\nqa\nstaging\n', stderr: '', exitCode: 0 });
  });

  it('prints nothing, quietly, where nothing is known', async () => {
    expect(await run(['__complete', '--', 'nosuch', ''])).toEqual({ stdout: '', stderr: '', exitCode: 0 });
    expect(await run(['__complete', '--', 'pets', 'get', ''])).toEqual({ stdout: '', stderr: '', exitCode: 0 });
  });
});
