// The bench's server processes and the IPC they speak (bench/sandbox-child.mjs, bare-201*.mjs):
//   -> { type: 'ready', baseUrl }
//   <- { type: 'cpu' } -> { type: 'cpu', cpu: process.cpuUsage() }
//   <- { type: 'close' } -> exits
// plus what bench/sandbox-child.mjs answers besides. Both sides are here: forkServer for the parent,
// serveOverIpc for a bare server; and bundleSandbox, since the sandbox is not in dist/ as a module.
import { fork } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Bundles src/sandbox (TypeScript) into one ES module at `outfile`, for bench/sandbox-child.mjs. */
export async function bundleSandbox(outfile) {
  const { build } = await import('esbuild');
  await build({
    entryPoints: [join(ROOT, 'src/sandbox/index.ts')],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    logLevel: 'warning',
  });
  return outfile;
}

/**
 * Forks `script` (relative to the repository) with `argv`; `next(type)` resolves to the next message of
 * that type, and rejects if the process exits first.
 */
export function forkServer(script, argv) {
  const child = fork(join(ROOT, script), argv, { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const next = (type) =>
    new Promise((resolve, reject) => {
      const onMessage = (m) => {
        if (m.type !== type) return;
        child.off('message', onMessage);
        child.off('exit', onExit);
        resolve(m);
      };
      const onExit = (code) => reject(new Error(`${script} exited (${code})`));
      child.on('message', onMessage);
      child.once('exit', onExit);
    });
  return { child, next };
}

/** A bare server's side of the IPC: listens on a loopback port, says ready, answers cpu, closes. */
export function serveOverIpc(server) {
  server.keepAliveTimeout = 10_000;
  server.listen(0, '127.0.0.1', () => process.send({ type: 'ready', baseUrl: `http://127.0.0.1:${server.address().port}/v1` }));
  process.on('disconnect', () => process.exit(0));
  process.on('message', (msg) => {
    if (msg.type === 'cpu') process.send({ type: 'cpu', cpu: process.cpuUsage() });
    else if (msg.type === 'close') server.close(() => process.exit(0));
  });
}
