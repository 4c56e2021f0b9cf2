import { build } from 'esbuild';

/**
 * One TypeScript module of src/ bundled into an ES module file that a plain `node` worker process
 * can import (tests that need several real processes sharing a file: locks, the rate state).
 * CommonJS dependencies get require() and __filename, as scripts/build.mjs gives them.
 */
export async function bundleForWorker(entry: string, outfile: string): Promise<string> {
  await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile,
    logLevel: 'silent',
    banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
    define: { __filename: 'import.meta.filename' },
  });
  return outfile;
}
