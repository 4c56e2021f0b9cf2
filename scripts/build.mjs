// Bundles src/ and its dependencies into dist/: dist/main.js, which bin/petstore imports, and
// dist/chunks/, what esbuild splits off at each dynamic import (a command's module, a package only some
// commands use), so that a command loads and compiles only what it runs. Dependencies are bundled
// too: nothing to resolve in node_modules at start-up. They stay in package.json "dependencies" for
// their licences and types.
//
//   node scripts/build.mjs            build into dist/ (safe while other processes run dist/)
//   node scripts/build.mjs --clean    delete dist/ first (for packing a release)
//   node scripts/build.mjs --outdir D build into D instead (e.g. to benchmark a variant)
//
// Other processes (end-to-end tests, a running sandbox) may be running dist/ while it is rebuilt. So
// the build goes to a temporary folder, then moves in: the chunks first (named by their content, so
// none replaces a different file), the entry last with one atomic rename. A process that started with
// the old entry still finds the chunks it may import later; chunks no build has used for
// PRUNE_AFTER_MS are deleted.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';

const PRUNE_AFTER_MS = 15 * 60 * 1000;
const root = fileURLToPath(new URL('..', import.meta.url));
const { values: flags } = parseArgs({ options: { outdir: { type: 'string' }, clean: { type: 'boolean', default: false } } });
const outdir = resolve(root, flags.outdir ?? 'dist');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

const tmp = `${outdir}.build-${process.pid}`;
try {
  await build({
    absWorkingDir: root,
    entryPoints: ['src/main.ts'],
    outdir: tmp,
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    // CommonJS dependencies (undici, ioredis...) call require() and read __filename, which an ES module
    // does not have.
    banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
    define: { __VERSION__: JSON.stringify(pkg.version), __filename: 'import.meta.filename' },
    // Whitespace and syntax only: identifiers stay, so --debug stack traces stay readable.
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  if (flags.clean) rmSync(outdir, { recursive: true, force: true });
  publish(tmp, outdir);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}

/** Moves a finished build into place without a moment where a file another process needs is missing. */
function publish(from, to) {
  mkdirSync(join(to, 'chunks'), { recursive: true });
  const built = new Set(readdirSync(join(from, 'chunks')));
  const now = new Date();
  for (const name of built) {
    const file = join(to, 'chunks', name);
    // Touched, so that pruning counts from its last use.
    if (existsSync(file)) utimesSync(file, now, now);
    else renameSync(join(from, 'chunks', name), file);
  }
  renameSync(join(from, 'main.js'), join(to, 'main.js'));
  for (const name of readdirSync(join(to, 'chunks'))) {
    const file = join(to, 'chunks', name);
    if (!built.has(name) && now.getTime() - statSync(file).mtimeMs > PRUNE_AFTER_MS) rmSync(file);
  }
}
