// Bundles src/ into dist/main.cjs, which bin/petstore runs, and the packages it uses into dist/vendor/:
// nothing to resolve in node_modules at start-up. main.cjs holds only what every run needs (src/,
// commander, and chalk, which src/ imports statically from a module it loads on demand); each other
// package is imported dynamically by the commands that use it, so a run loads and compiles only the
// packages it uses. main.cjs is CommonJS so that bin/petstore can run it from a V8 code cache of its own
// (bench/README.md, "Speed tricks kept"). The packages are devDependencies: the npm package ships them
// bundled, so installing it fetches nothing (test/e2e/install.test.ts installs it offline).
//
// Node's builtins are read with process.getBuiltinModule() (builtinsPlugin): an ES module import of a
// builtin runs every lazy getter of its exports (node:util loads parseArgs and worker_threads, node:fs
// fs/promises), which doubled the cost of loading the bundle (bench/README.md).
//
//   node scripts/build.mjs            build into dist/ (safe while other processes run dist/)
//   node scripts/build.mjs --clean    delete dist/ first (for packing a release)
//   node scripts/build.mjs --outdir D build into D instead (e.g. to benchmark a variant)
//
// Other processes (end-to-end tests, a running sandbox) may be running dist/ while it is rebuilt: every
// file is written into a temporary folder and renamed into place, which is atomic: the shared chunks
// first (their names are hashes of their content, and old ones stay until --clean), then the packages,
// then main.cjs.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { buildInfoDefine } from './build-info.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const { values: flags } = parseArgs({ options: { outdir: { type: 'string' }, clean: { type: 'boolean', default: false } } });
const outdir = resolve(root, flags.outdir ?? 'dist');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

/**
 * An ES module for a builtin: each name a constant read on first use, and unused ones tree-shaken.
 * commander imports child_process (which loads net and dgram) only to run executable subcommands,
 * which petstore has none of: its default export reads the module only when used.
 */
function builtinShim(name) {
  const load = `process.getBuiltinModule('node:${name}')`;
  const names = Object.getOwnPropertyNames(process.getBuiltinModule(`node:${name}`)).filter((n) => n !== 'default');
  const lines = [`const m = () => ${load};`];
  lines.push(name === 'child_process' ? 'export default new Proxy({}, { get: (_, n) => m()[n] });' : 'export default m();');
  for (const [i, n] of names.entries())
    lines.push(`const v${i} = /* @__PURE__ */ (() => m()[${JSON.stringify(n)}])();`, `export { v${i} as ${JSON.stringify(n)} };`);
  return lines.join('\n');
}

/** Imports of builtins get builtinShim(); require() calls in CommonJS dependencies get the builtin itself. */
const builtinsPlugin = {
  name: 'builtins',
  setup(b) {
    b.onResolve({ filter: /^(node:)?[a-z_0-9/]+$/ }, (args) => {
      const name = args.path.replace(/^node:/, '');
      if (!args.path.startsWith('node:') && !builtinModules.includes(name)) return undefined;
      return { path: name, namespace: args.kind === 'require-call' ? 'builtin-cjs' : 'builtin-esm', sideEffects: false };
    });
    b.onLoad({ filter: /.*/, namespace: 'builtin-cjs' }, ({ path }) => ({ contents: `module.exports = process.getBuiltinModule('node:${path}');` }));
    b.onLoad({ filter: /.*/, namespace: 'builtin-esm' }, ({ path }) => ({ contents: builtinShim(path) }));
  },
};

/**
 * Packages other than commander and chalk: built into dist/vendor/<name>.js (ES modules) by the second build
 * below. main.cjs reaches each through a module of two re-export lines, which esbuild runs only when the
 * package is first imported: a require() of the ES module (no import(), which a vm.Script could only do
 * through an experimental loader).
 */
const vendored = new Map();
const vendorPlugin = {
  name: 'vendor',
  setup(b) {
    b.onResolve({ filter: /^[@a-z]/ }, ({ path }) => {
      if (path.startsWith('node:') || builtinModules.includes(path) || ['commander', 'chalk'].includes(path)) return undefined;
      const name = path.replace(/^@/, '').replace(/[^a-z0-9]+/g, '-');
      vendored.set(name, path);
      return { path: name, namespace: 'vendor' };
    });
    b.onResolve({ filter: /^\.\/vendor\//, namespace: 'vendor' }, ({ path }) => ({ path, external: true }));
    b.onLoad({ filter: /.*/, namespace: 'vendor' }, ({ path }) => ({
      contents: `export * from './vendor/${path}.js';\nexport { default } from './vendor/${path}.js';`,
    }));
  },
};

const common = {
  absWorkingDir: root,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  // CommonJS dependencies read __filename, which an ES module does not have (write-file-atomic: a salt).
  define: { __VERSION__: JSON.stringify(pkg.version), __BUILD__: buildInfoDefine(root), __filename: 'import.meta.filename' },
  // Whitespace and syntax only: identifiers stay, so --debug stack traces stay readable.
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  logLevel: 'warning',
};

if (flags.clean) rmSync(outdir, { recursive: true, force: true });
const tmp = join(outdir, `.build-${process.pid}`);
try {
  // CommonJS has no import.meta: its one use, a file's own URL, is the bundle's.
  const main = { format: 'cjs', define: { ...common.define, __filename: '__filename', 'import.meta.url': '__bundle_url' } };
  const banner = { js: "const __bundle_url = require('node:url').pathToFileURL(__filename).href;" };
  await build({ ...common, ...main, banner, entryPoints: ['src/main.ts'], outfile: join(tmp, 'main.cjs'), plugins: [vendorPlugin, builtinsPlugin] });
  // The packages share code (undici's web streams, ...): splitting keeps one copy of it, in chunk-<hash>.js.
  const entryPoints = Object.fromEntries(vendored);
  await build({ ...common, entryPoints, outdir: join(tmp, 'vendor'), splitting: true, chunkNames: 'chunk-[hash]', plugins: [builtinsPlugin] });
  mkdirSync(join(outdir, 'vendor'), { recursive: true });
  const files = readdirSync(join(tmp, 'vendor')).sort((a, b) => Number(b.startsWith('chunk-')) - Number(a.startsWith('chunk-')));
  for (const f of files) renameSync(join(tmp, 'vendor', f), join(outdir, 'vendor', f));
  renameSync(join(tmp, 'main.cjs'), join(outdir, 'main.cjs'));
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
