// A real redis-server for the --limiter tests: on a free loopback port, nothing saved to disk.
// Tests that need it use `describe.skipIf(missingTool('redis-server', hasRedisServer()))`
// (test/helpers/tools.ts: skipped on a developer's machine without it, a failure in CI).

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { probePort } from './loopback.js';
import type { TestCert } from './tls-cert.js';

export function hasRedisServer(): boolean {
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

/** A port nothing listens on now: bound by the OS, then released. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface RedisHandle {
  port: number;
  url: string;
  /** Stops the server (SIGKILL when `hard`); resolves when it has exited. */
  stop(hard?: boolean): Promise<void>;
}

const accepting = async (port: number) => (await probePort(port)) === 'open';

/** Starts redis-server on a free loopback port and waits until it accepts connections. */
/** `password`: requirepass. `tls`: the port speaks only TLS with this certificate (rediss://). */
export async function startRedis(opts: { password?: string; tls?: TestCert } = {}): Promise<RedisHandle> {
  for (let tries = 0; ; tries++) {
    const port = await freePort();
    const child: ChildProcess = spawn(
      'redis-server',
      [
        ...(opts.tls
          ? ['--port', '0', '--tls-port', String(port), '--tls-cert-file', opts.tls.certFile, '--tls-key-file', opts.tls.keyFile, '--tls-auth-clients', 'no']
          : ['--port', String(port)]),
        ...['--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loglevel', 'warning'],
        ...(opts.password ? ['--requirepass', opts.password] : []),
      ],
      {
        stdio: 'ignore',
      },
    );
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    let dead = false;
    void exited.then(() => {
      dead = true;
    });
    const started = Date.now();
    while (!dead && Date.now() - started < 5000 && !(await accepting(port))) await new Promise((r) => setTimeout(r, 20));
    if (!dead && (await accepting(port))) {
      return {
        port,
        url: `${opts.tls ? 'rediss' : 'redis'}://${opts.password ? `:${opts.password}@` : ''}127.0.0.1:${port}/0`,
        async stop(hard = false) {
          if (!dead) child.kill(hard ? 'SIGKILL' : 'SIGTERM');
          await exited;
        },
      };
    }
    child.kill('SIGKILL');
    // The port was taken between freePort() and the start: try another.
    if (tries >= 3) throw new Error(`redis-server did not start on 127.0.0.1:${port}`);
  }
}
