// npm run package: petstore as one executable per platform, for machines without Node, in release/:
//   petstore-<version>-<target>[.exe]       Node's single executable application (SEA): the Node binary of
//                                            the pinned `node` devDependency with the whole CLI injected
//   petstore-<version>-<target>.tar.gz|.zip  the executable, the man page, the completion scripts, LICENSE, INSTALL
//   SHA256SUMS                               for `sha256sum -c SHA256SUMS`
//
// The SEA runs bin/petstore, bundled, as its main script; the CLI (src/main.ts with every package inlined)
// is an asset that bin/petstore runs from its code cache, as it runs dist/main.cjs; it reads no files. The
// sandbox's OpenAPI description and the keyring binding are assets too (read with node:sea).
// Another platform's Node binary is the registry's node-<target> package at this Node's version (npm
// pack, cached in .cache/node/).
//
//   node scripts/package.mjs                      every target (needs the registry for the other two)
//   node scripts/package.mjs --target linux-x64   only these (repeatable)
//   node scripts/package.mjs --out DIR            into DIR instead of release/
//   node scripts/package.mjs --no-archives        the executables only (the tests)
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { crc32, deflateRawSync } from 'node:zlib';
import { build } from 'esbuild';
import { inject } from 'postject';

const root = fileURLToPath(new URL('..', import.meta.url));
const TARGETS = {
  'linux-x64': { binary: 'bin/node', exe: '', keyring: 'linux-x64-gnu' },
  'linux-arm64': { binary: 'bin/node', exe: '', keyring: 'linux-arm64-gnu' },
  'win-x64': { binary: 'bin/node.exe', exe: '.exe', keyring: 'win32-x64-msvc' },
};
const { values: flags } = parseArgs({
  options: { target: { type: 'string', multiple: true }, out: { type: 'string' }, archives: { type: 'boolean', default: true } },
  allowNegative: true,
});
const targets = flags.target ?? Object.keys(TARGETS);
for (const t of targets) if (!TARGETS[t]) throw new Error(`unknown --target ${t}: one of ${Object.keys(TARGETS).join(', ')}`);
const out = resolve(root, flags.out ?? 'release');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const nodeVersion = JSON.parse(readFileSync(join(root, 'node_modules/node/package.json'), 'utf8')).version;
// A SEA blob is read only by the Node version that wrote it.
if (process.versions.node !== nodeVersion) throw new Error(`run on the pinned Node ${nodeVersion} (npm run package), not ${process.version}`);
const host = `${process.platform === 'win32' ? 'win' : process.platform}-${process.arch}`;
const work = mkdtempSync(join(tmpdir(), 'petstore-package-'));
const run = (file, args, opts = {}) => execFileSync(file, args, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], ...opts });

/**
 * The SEA's main script, bin/petstore (its --version fast path, then the loader that runs the CLI from a code
 * cache), and its assets: dist/main.cjs, and each package of dist/vendor/ as one CommonJS file (a SEA has no
 * module loader for its assets; bin/petstore runs them).
 */
async function bundle() {
  const common = {
    absWorkingDir: root,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: 'none',
    logLevel: 'error',
  };
  const script = join(work, 'petstore.cjs');
  await build({ ...common, entryPoints: ['bin/petstore'], loader: { '': 'js' }, outfile: script, define: { __VERSION__: JSON.stringify(pkg.version) } });
  // A SEA compiles its main script as the body of a CommonJS function: no "#!" line.
  writeFileSync(script, readFileSync(script, 'utf8').replace(/^#!.*\n/, ''));
  const dist = join(work, 'dist');
  run(process.execPath, ['scripts/build.mjs', '--outdir', dist]);
  const assets = { 'main.cjs': join(dist, 'main.cjs') };
  for (const f of readdirSync(join(dist, 'vendor')).filter((f) => !f.startsWith('chunk-'))) {
    assets[`vendor/${f}`] = join(work, 'vendor', f);
    await build({ ...common, entryPoints: [join(dist, 'vendor', f)], outfile: assets[`vendor/${f}`], define: { 'import.meta.filename': '__filename' } });
  }
  return { script, assets };
}

/** The Node binary of target at the pinned version: this one, or the registry's node-<target> package. */
function nodeBinary(target) {
  if (target === host) return process.execPath;
  const cache = join(root, '.cache', 'node');
  const tgz = join(cache, `node-${target}-${nodeVersion}.tgz`);
  if (!existsSync(tgz)) {
    mkdirSync(cache, { recursive: true });
    run('npm', ['pack', `node-${target}@${nodeVersion}`, '--pack-destination', cache, '--silent']);
  }
  const dir = join(work, `node-${target}`);
  mkdirSync(dir);
  run('tar', ['-xzf', tgz, '-C', dir, `package/${TARGETS[target].binary}`]);
  return join(dir, 'package', TARGETS[target].binary);
}

/** The target's prebuilt @napi-rs/keyring binding (a native module cannot be bundled): the executable carries it as an asset. */
function keyringBinding(target) {
  const name = `keyring-${TARGETS[target].keyring}`;
  const file = `keyring.${TARGETS[target].keyring}.node`;
  const installed = join(root, 'node_modules/@napi-rs', name, file);
  if (existsSync(installed)) return installed;
  const version = JSON.parse(readFileSync(join(root, 'node_modules/@napi-rs/keyring/package.json'), 'utf8')).version;
  const cache = join(root, '.cache', 'keyring');
  const tgz = join(cache, `napi-rs-${name}-${version}.tgz`);
  if (!existsSync(tgz)) {
    mkdirSync(cache, { recursive: true });
    run('npm', ['pack', `@napi-rs/${name}@${version}`, '--pack-destination', cache, '--silent']);
  }
  const dir = join(work, name);
  mkdirSync(dir);
  run('tar', ['-xzf', tgz, '-C', dir, `package/${file}`]);
  return join(dir, 'package', file);
}

/**
 * Removes the Authenticode signature of a Windows executable (the certificate table, at the end of the
 * file): injecting the CLI breaks it, and a broken signature warns more than none (Node's SEA docs).
 */
function unsign(file) {
  const pe = readFileSync(file);
  const optional = pe.readUInt32LE(0x3c) + 24;
  if (pe.readUInt16LE(optional) !== 0x20b) throw new Error(`${file}: not a PE32+ executable`);
  const entry = optional + 144;
  const [at, size] = [pe.readUInt32LE(entry), pe.readUInt32LE(entry + 4)];
  if (size === 0) return;
  if (at + size !== pe.length) throw new Error(`${file}: the signature is not at the end of the file`);
  pe.writeUInt32LE(0, entry);
  pe.writeUInt32LE(0, entry + 4);
  writeFileSync(file, pe.subarray(0, at));
}

/** release/petstore-<version>-<target>[.exe]: the target's Node with the CLI injected. */
async function executable(target, { script, assets: cli }) {
  const blob = join(work, `${target}.blob`);
  const config = join(work, `${target}.sea.json`);
  const assets = { ...cli, 'openapi/petstore.yaml': join(root, 'openapi/petstore.yaml'), 'keyring.node': keyringBinding(target) };
  writeFileSync(config, JSON.stringify({ main: script, output: blob, disableExperimentalSEAWarning: true, assets }));
  run(process.execPath, ['--experimental-sea-config', config], { stdio: ['ignore', 'ignore', 'inherit'] });
  const file = join(out, `petstore-${pkg.version}-${target}${TARGETS[target].exe}`);
  copyFileSync(nodeBinary(target), file);
  chmodSync(file, 0o755);
  if (TARGETS[target].exe) unsign(file);
  await inject(file, 'NODE_SEA_BLOB', readFileSync(blob), { sentinelFuse: 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2', overwrite: true });
  return file;
}

const COMPLETIONS = { bash: 'petstore.bash', zsh: '_petstore', fish: 'petstore.fish', powershell: 'petstore.ps1' };

function installNote(target, exe) {
  const unix = `Put petstore on your PATH:  install -D -m 755 petstore ~/.local/bin/petstore
Man page:    install -D -m 644 petstore.1 ~/.local/share/man/man1/petstore.1
Completion:  bash: install -D -m 644 completions/petstore.bash ~/.local/share/bash-completion/completions/petstore
             zsh:  install -D -m 644 completions/_petstore ~/.zfunc/_petstore  (fpath=(~/.zfunc $fpath) before compinit)
             fish: install -D -m 644 completions/petstore.fish ~/.config/fish/completions/petstore.fish`;
  const windows = `Put petstore.exe in a folder on your PATH (e.g. %LOCALAPPDATA%\\Programs\\petstore, added to PATH in
the user's environment variables). Completion: . completions\\petstore.ps1 in your PowerShell $PROFILE.`;
  return `petstore ${pkg.version} for ${target}: one executable, no Node.js needed.

${target.startsWith('win') ? windows : unix}

Check it: petstore${exe} --version --verbose
Start: petstore${exe} sandbox --port 0  (a local server), then petstore${exe} help.
Exit codes, usage and the source: README at the project's home.
`;
}

/** A .zip of files ({ name: path }), deflated: Windows opens it without extra tools. */
function zip(file, files) {
  const locals = [];
  const central = [];
  let offset = 0;
  for (const [name, path] of Object.entries(files)) {
    const data = readFileSync(path);
    const packed = deflateRawSync(data);
    const nameBytes = Buffer.from(name);
    const head = Buffer.alloc(30);
    head.writeUInt32LE(0x04034b50, 0);
    for (const [at, v] of [
      [4, 20],
      [8, 8],
      [12, 0x21],
    ])
      head.writeUInt16LE(v, at);
    for (const [at, v] of [
      [14, crc32(data)],
      [18, packed.length],
      [22, data.length],
    ])
      head.writeUInt32LE(v, at);
    head.writeUInt16LE(nameBytes.length, 26);
    const entry = Buffer.alloc(46);
    entry.writeUInt32LE(0x02014b50, 0);
    for (const [at, v] of [
      [4, 20],
      [6, 20],
      [10, 8],
      [14, 0x21],
      [28, nameBytes.length],
    ])
      entry.writeUInt16LE(v, at);
    for (const [at, v] of [
      [16, crc32(data)],
      [20, packed.length],
      [24, data.length],
      [42, offset],
    ])
      entry.writeUInt32LE(v, at);
    locals.push(head, nameBytes, packed);
    central.push(entry, nameBytes);
    offset += head.length + nameBytes.length + packed.length;
  }
  const dir = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(central.length / 2, 8);
  end.writeUInt16LE(central.length / 2, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(offset, 16);
  writeFileSync(file, Buffer.concat([...locals, dir, end]));
}

/** The archive of target: its executable, the man page, the completion scripts, LICENSE and INSTALL. */
function archive(target, exeFile, completions) {
  const exe = TARGETS[target].exe;
  const name = `petstore-${pkg.version}-${target}`;
  const files = {
    [`petstore${exe}`]: exeFile,
    'petstore.1': join(root, 'docs/petstore.1'),
    LICENSE: join(root, 'LICENSE'),
    [`INSTALL${exe ? '.txt' : ''}`]: join(work, `INSTALL-${target}`),
    ...Object.fromEntries(Object.values(COMPLETIONS).map((f) => [`completions/${f}`, completions[f]])),
  };
  writeFileSync(files[`INSTALL${exe ? '.txt' : ''}`], installNote(target, exe));
  if (exe) return zip(join(out, `${name}.zip`), Object.fromEntries(Object.entries(files).map(([n, p]) => [`${name}/${n}`, p])));
  const stage = join(work, name);
  for (const [n, p] of Object.entries(files)) {
    mkdirSync(join(stage, n, '..'), { recursive: true });
    copyFileSync(p, join(stage, n));
  }
  chmodSync(join(stage, 'petstore'), 0o755);
  run('tar', ['--owner=0', '--group=0', '--numeric-owner', '-czf', join(out, `${name}.tar.gz`), '-C', work, name]);
}

/** The archives of the built targets, and SHA256SUMS over everything in out. */
function archives(built) {
  // The executable of this platform writes the completion scripts every archive holds.
  const generator = built[host] ? [built[host]] : [process.execPath, join(root, 'bin/petstore')];
  const completions = {};
  for (const [shell, f] of Object.entries(COMPLETIONS)) {
    completions[f] = join(work, f);
    writeFileSync(
      completions[f],
      run(generator[0], [...generator.slice(1), 'completion', shell], { env: { PATH: process.env.PATH, PETSTORE_NO_COMPILE_CACHE: '1' } }),
    );
  }
  for (const t of Object.keys(built)) archive(t, built[t], completions);
  const sums = readdirSync(out)
    .sort()
    .map(
      (f) =>
        `${createHash('sha256')
          .update(readFileSync(join(out, f)))
          .digest('hex')}  ${f}\n`,
    );
  writeFileSync(join(out, 'SHA256SUMS'), sums.join(''));
}

try {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const script = await bundle();
  const built = {};
  for (const t of targets) built[t] = await executable(t, script);
  if (flags.archives) archives(built);
  process.stdout.write(`built in ${out}: ${targets.join(', ')}\n`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
