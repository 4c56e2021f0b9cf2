import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../helpers/sandbox.js';
import type { SandboxHandle } from '../../src/sandbox/server.js';
import { tempDir } from '../helpers/cli.js';
import { missingTool } from '../helpers/tools.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const tmp = tempDir('petstore-install-');
const KEY = 'sk_install_test_0123456789';
let sb: SandboxHandle;
let tarball: string;
let files: string[];

beforeAll(async () => {
  sb = await startSandbox({ keys: [KEY] });
  // --ignore-scripts: the suite has just built dist/; a prepack rebuild would race other tests.
  const packed = await execa('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', tmp.dir], { cwd: root });
  const info = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
  tarball = join(tmp.dir, info[0]!.filename);
  files = info[0]!.files.map((f) => f.path).sort();
  // --offline: dist/ bundles the packages and the keyring binding is optional, so no registry is needed;
  // an empty cache of its own proves nothing came from the developer's.
  await execa(
    'npm',
    ['install', '--global', '--prefix', join(tmp.dir, 'prefix'), '--offline', '--cache', join(tmp.dir, 'npm-cache'), '--no-audit', '--no-fund', tarball],
    {
      cwd: tmp.dir,
    },
  );
}, 180_000);

afterAll(async () => {
  await sb?.close();
  tmp.cleanup();
});

describe('the npm package', () => {
  it('holds only what runs: bin, dist, README, LICENSE, package.json, the man page, the OpenAPI description', () => {
    const outside = files.filter(
      (f) =>
        !(f === 'bin/petstore' || f.startsWith('dist/') || ['README.md', 'LICENSE', 'package.json', 'docs/petstore.1', 'openapi/petstore.yaml'].includes(f)),
    );
    expect(outside).toEqual([]);
    expect(files).toContain('bin/petstore');
    expect(files).toContain('dist/main.cjs');
    expect(files.some((f) => f.startsWith('src/') || f.startsWith('test/'))).toBe(false);
  });

  it('depends on nothing at run time but the optional keyring binding: an offline install fetched and installed no other package', () => {
    // A native module, which dist/ cannot bundle; without it the key goes to the 0600 file (docs/security.md).
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies?: object; optionalDependencies?: object };
    expect(pkg.dependencies ?? {}).toEqual({});
    expect(Object.keys(pkg.optionalDependencies ?? {})).toEqual(['@napi-rs/keyring']);
    expect(existsSync(join(tmp.dir, 'prefix', 'lib', 'node_modules', 'petstore', 'node_modules'))).toBe(false);
  });

  it.skipIf(missingTool('the system Node (/usr/bin/node)', existsSync('/usr/bin/node')))(
    'installed, refuses a Node older than its engines field in one line',
    async () => {
      const version = (await execa('/usr/bin/node', ['--version'])).stdout.trim();
      const installed = join(tmp.dir, 'prefix', 'lib', 'node_modules', 'petstore', 'bin', 'petstore');
      const r = await execa('/usr/bin/node', [installed, '--version'], { reject: false, env: { PATH: '/usr/bin:/bin' }, extendEnv: false });
      const [major, minor] = version.slice(1).split('.').map(Number) as [number, number];
      if (major > 22 || (major === 22 && minor >= 22)) return expect(r.exitCode).toBe(0);
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toBe(`petstore: Node.js 22.22 or newer is required (this is ${version}); install a current Node.js LTS from https://nodejs.org`);
    },
  );

  it('installed into a global prefix, runs --version and pets list against a sandbox', async () => {
    const prefix = join(tmp.dir, 'prefix');
    expect(readdirSync(join(prefix, 'bin'))).toContain('petstore');
    // package.json "man": `man petstore` finds the generated page (docs/petstore.1).
    expect(readdirSync(join(prefix, 'share', 'man', 'man1'))).toContain('petstore.1');
    const env = {
      // The installed bin's "#!/usr/bin/env node" finds this test's Node first.
      PATH: `${dirname(process.execPath)}:/usr/bin:/bin`,
      HOME: tmp.dir,
      PETSTORE_CONFIG_DIR: join(tmp.dir, 'config'),
      PETSTORE_BASE_URL: sb.baseUrl,
      PETSTORE_API_KEY: KEY,
    };
    const version = await execa(join(prefix, 'bin', 'petstore'), ['--version'], { env, extendEnv: false, reject: false });
    expect(version.exitCode).toBe(0);
    const pkg = (await import('../../package.json', { with: { type: 'json' } })).default as { version: string };
    expect(version.stdout.trim()).toBe(pkg.version);

    sb.seed([{ name: 'Installed', categoryId: 9007199254740993n, status: 'available' }]);
    const list = await execa(join(prefix, 'bin', 'petstore'), ['pets', 'list', '-o', 'json'], { env, extendEnv: false, reject: false });
    expect(list.exitCode, list.stderr).toBe(0);
    expect(list.stdout).toContain('"name":"Installed","categoryId":9007199254740993');
    expect(sb.requests().at(-1)?.headers['user-agent']).toBe(`petstore-cli/${pkg.version}`);
  });
});
