import { expect } from 'vitest';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { probePort } from './loopback.js';
import { startSandbox } from './sandbox.js';
import type { SandboxHandle, SandboxOptions } from '../../src/sandbox/server.js';
import { runCli, tempDir, type CliOptions, type CliResult } from './cli.js';

export const E2E_KEY = 'sk_e2e_test_key_abcdefghij9z9z';

/** The key appears in none of what the user saw (stdout, stderr, or a pty's combined output). */
export function expectNoKey(r: { stdout?: string; stderr?: string; output?: string }, key = E2E_KEY): void {
  for (const text of [r.stdout, r.stderr, r.output]) if (text !== undefined) expect(text).not.toContain(key);
}

export interface E2E {
  sb: SandboxHandle;
  /** The temp folder given to runCli as configDir (the config lives in <dir>/petstore). */
  dir: string;
  configDir: string;
  /** Runs the built CLI against the sandbox: PETSTORE_BASE_URL set, and PETSTORE_API_KEY unless env overrides it. */
  cli(args: string[], opts?: CliOptions & { key?: string | null }): Promise<CliResult>;
  close(): Promise<void>;
}

/** A sandbox with generous limits and a fresh config folder. */
export async function e2e(options: SandboxOptions = {}): Promise<E2E> {
  const sb = await startSandbox({ keys: [E2E_KEY], perMinute: 100_000, perDay: 10_000_000, ...options });
  const tmp = tempDir();
  return {
    sb,
    dir: tmp.dir,
    configDir: `${tmp.dir}/petstore`,
    cli(args, opts = {}) {
      const key = opts.key === undefined ? E2E_KEY : opts.key;
      return runCli(args, {
        ...opts,
        configDir: tmp.dir,
        env: { PETSTORE_BASE_URL: sb.baseUrl, ...(key !== null ? { PETSTORE_API_KEY: key } : {}), ...opts.env },
      });
    },
    async close() {
      await sb.close();
      tmp.cleanup();
    },
  };
}

/** A tiny local HTTP server answering every request with handler; for responses the sandbox never gives. */
export async function fakeServer(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ baseUrl: string; hits: () => number; close: () => Promise<void> }> {
  let hits = 0;
  const server = createServer((req, res) => {
    hits++;
    handler(req, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    hits: () => hits,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** A loopback base URL on which nothing listens (connection refused). */
export async function closedPortUrl(): Promise<string> {
  // Port 1 (tcpmux) is privileged and unused: no other test's server can take it between this call and
  // the request, as an ephemeral port just released can be while the suite runs in parallel.
  if ((await probePort(1)) === 'ECONNREFUSED') return 'http://127.0.0.1:1/v1';
  const s = await fakeServer(() => {});
  await s.close();
  return s.baseUrl;
}
