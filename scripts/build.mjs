// Bundles src/ into dist/: one entry plus lazily loaded chunks, so --help and
// --version never load undici, conf, ora or cli-table3.
import { readFileSync, rmSync } from 'node:fs';
import { build } from 'esbuild';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
await build({
  entryPoints: ['src/main.ts'],
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  packages: 'external',
  sourcemap: false,
  minify: false,
  legalComments: 'none',
  chunkNames: 'chunks/[name]-[hash]',
  define: { __VERSION__: JSON.stringify(pkg.version) },
  logLevel: 'warning',
});
