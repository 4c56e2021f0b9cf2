// The commands `petstore sandbox` prints to point the CLI at it, run as a user would paste them into a
// shell: they must log in to an environment of their own, never store the sandbox's key for production.
// Needs `npm run build` first.
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, spawnCli, tempDir } from '../helpers/cli.js';

const KEY = 'sk_banner_test_key_0123456789';

let tmp: ReturnType<typeof tempDir>;
let sandbox: ReturnType<typeof spawnCli>;
let banner = '';

beforeAll(async () => {
  tmp = tempDir('petstore-e2e-banner-');
  sandbox = spawnCli(['sandbox', '--port', '0', '--key', KEY], { configDir: join(tmp.dir, 'sandbox-home'), timeoutMs: 60_000 });
  await new Promise<void>((resolve, reject) => {
    sandbox.stderr?.on('data', (c: Buffer) => {
      banner += c.toString();
      if (banner.includes('Press Ctrl-C to stop.')) resolve();
    });
    void sandbox.then(() => reject(new Error(`sandbox exited: ${banner}`)));
  });
});

afterAll(async () => {
  sandbox.kill('SIGTERM');
  await sandbox;
  tmp.cleanup();
});

describe('the sandbox banner', () => {
  it('its commands, pasted into a shell, make a "sandbox" environment that works, and leave production alone', async () => {
    const lines = banner.split('\n');
    const from = lines.findIndex((l) => l.startsWith('Point the CLI at it'));
    const to = lines.indexOf('Press Ctrl-C to stop.');
    const commands = lines.slice(from + 1, to).map((l) => l.trim());
    expect(commands.length).toBeGreaterThan(0);

    // `petstore` on PATH is the built CLI on this Node.
    const binDir = join(tmp.dir, 'bin');
    mkdirSync(binDir);
    writeFileSync(join(binDir, 'petstore'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} "$@"\n`);
    chmodSync(join(binDir, 'petstore'), 0o755);
    const configDir = join(tmp.dir, 'user', 'petstore');
    const script = `set -e\n${commands.join('\n')}\npetstore pets add --name Rex --category-id 1 -o json\npetstore pets list -o json\n`;
    const r = await execa('sh', ['-c', script], {
      env: { PATH: `${binDir}:${process.env.PATH}`, HOME: tmp.dir, PETSTORE_CONFIG_DIR: configDir, PETSTORE_STATE_DIR: join(tmp.dir, 'state') },
      extendEnv: false,
      reject: false,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain('"name":"Rex"');

    const config = JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8'));
    expect(config.envs.sandbox).toEqual({ baseUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/v1$/), apiKey: KEY });
    expect(config.envs.production).toBeUndefined();
    // The default is untouched: PETSTORE_ENV chose the sandbox for that shell only.
    expect(config.currentEnv).toBeUndefined();
  });
});
