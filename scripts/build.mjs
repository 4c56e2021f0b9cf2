// Bundles src/ and its dependencies into one file, dist/main.js, which bin/petstore imports: nothing to
// resolve in node_modules at start-up, and one file to load (esbuild's code splitting cut src/ into
// dozens of chunks, each an ES module to resolve and link, which cost more than they saved). Modules
// imported dynamically (a command's module, a package only some commands use) still run only when
// used. Dependencies stay in package.json "dependencies" for their licences and types.
//
// Node's builtins are read with process.getBuiltinModule() (builtinsPlugin): an ES module import of a
// builtin runs every lazy getter of its exports (node:util loads parseArgs and worker_threads, node:fs
// fs/promises), which doubled the cost of loading dist/main.js (bench/README.md).
//
//   node scripts/build.mjs            build into dist/ (safe while other processes run dist/)
//   node scripts/build.mjs --clean    delete dist/ first (for packing a release)
//   node scripts/build.mjs --outdir D build into D instead (e.g. to benchmark a variant)
//
// Other processes (end-to-end tests, a running sandbox) may be running dist/main.js while it is
// rebuilt: the new file is written next to it and renamed over it, which is atomic.
import { mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';

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

if (flags.clean) rmSync(outdir, { recursive: true, force: true });
mkdirSync(outdir, { recursive: true });
const tmp = join(outdir, `main.js.${process.pid}.tmp`);
try {
  await build({
    absWorkingDir: root,
    entryPoints: ['src/main.ts'],
    outfile: tmp,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    plugins: [builtinsPlugin],
    // CommonJS dependencies read __filename, which an ES module does not have (write-file-atomic: a salt).
    define: { __VERSION__: JSON.stringify(pkg.version), __filename: 'import.meta.filename' },
    // Whitespace and syntax only: identifiers stay, so --debug stack traces stay readable.
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  renameSync(tmp, join(outdir, 'main.js'));
} finally {
  rmSync(tmp, { force: true });
}
