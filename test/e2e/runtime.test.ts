import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, runCli, tempDir } from '../helpers/cli.js';
import { missingTool } from '../helpers/tools.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

describe('Node version gate', () => {
  // Preloaded before bin/petstore, so the gate sees an old version without an old Node installed.
  const preload = join(tmp.dir, 'old-node.cjs');
  writeFileSync(
    preload,
    "Object.defineProperty(process, 'version', { value: 'v20.11.1' });\n" +
      "Object.defineProperty(process, 'versions', { value: { ...process.versions, node: '20.11.1' } });\n",
  );

  it('refuses an old Node with one clear line and exit 2', async () => {
    const r = await execa(process.execPath, ['--require', preload, BIN, '--version'], { reject: false, env: { PATH: process.env.PATH }, extendEnv: false });
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/Node\.js 22\.22 or newer is required \(this is v20\.11\.1\)/);
  });

  it('accepts exactly 22.22', async () => {
    const ok = join(tmp.dir, 'node-22-22.cjs');
    writeFileSync(ok, "Object.defineProperty(process, 'versions', { value: { ...process.versions, node: '22.22.0' } });\n");
    const r = await execa(process.execPath, ['--require', ok, BIN, '--version'], { reject: false, env: { PATH: process.env.PATH }, extendEnv: false });
    expect(r.exitCode).toBe(0);
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  // CI runs the suite once per supported Node major (.ci/run), setting PETSTORE_TEST_NODE_MAJOR: the CLI
  // the e2e tests start must be that Node too, not whichever node is first on PATH.
  it('the built CLI runs on the Node that runs the tests', async () => {
    const preload = join(tmp.dir, 'print-version.cjs');
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the template literal is in the preload file's code
    writeFileSync(preload, 'process.stderr.write(`node ${process.version}\\n`);\n');
    const r = await runCli(['--version'], { env: { NODE_OPTIONS: `--require ${preload}` } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toBe(`node ${process.version}\n`);
    const major = process.env.PETSTORE_TEST_NODE_MAJOR;
    if (major) expect(process.versions.node.split('.')[0]).toBe(major);
  });

  it.skipIf(missingTool('the system Node (/usr/bin/node)', existsSync('/usr/bin/node')))('refuses the real system Node when it is older', async () => {
    const version = (await execa('/usr/bin/node', ['--version'])).stdout.trim();
    const [major, minor] = version.slice(1).split('.').map(Number) as [number, number];
    const r = await execa('/usr/bin/node', [BIN, 'pets', 'list'], { reject: false, env: { PATH: process.env.PATH }, extendEnv: false });
    if (major < 22 || (major === 22 && minor < 22)) {
      expect(r.exitCode).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toContain(`this is ${version}`);
    } else {
      expect(r.stderr).not.toContain('or newer is required');
    }
  });
});
