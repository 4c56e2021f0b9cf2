import { closeSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa, type ResultPromise } from 'execa';

export const BIN = fileURLToPath(new URL('../../bin/petstore', import.meta.url));

export interface CliResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

export interface CliOptions {
  /** Extra environment; the run starts from a clean one (PATH only), never the test process's own. */
  env?: Record<string, string | undefined>;
  /** Text on stdin (a pipe, so not a TTY). */
  input?: string;
  /** stdin redirected from this file (`< file`): the process gets the file itself, not a pipe. */
  inputFile?: string;
  configDir?: string;
  timeoutMs?: number;
}

/** A temporary folder for PETSTORE_CONFIG_DIR and HOME; removed by cleanup(). */
export function tempDir(prefix = 'petstore-test-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

function cliEnv(opts: CliOptions): Record<string, string | undefined> {
  return {
    PATH: process.env.PATH,
    HOME: opts.configDir ?? tmpdir(),
    ...(opts.configDir ? { PETSTORE_CONFIG_DIR: join(opts.configDir, 'petstore'), PETSTORE_STATE_DIR: join(opts.configDir, 'state') } : {}),
    ...opts.env,
  };
}

/** Starts the built CLI (bin/petstore on this test's Node) without waiting. */
export function spawnCli(args: string[], opts: CliOptions = {}): ResultPromise {
  // A descriptor of the file itself: execa would pipe a { file } through a stream.
  const fd = opts.inputFile !== undefined ? openSync(opts.inputFile, 'r') : undefined;
  const child = execa(process.execPath, [BIN, ...args], {
    env: cliEnv(opts),
    extendEnv: false,
    reject: false,
    stripFinalNewline: false,
    timeout: opts.timeoutMs ?? 20_000,
    // execa's types take no descriptor number for stdin; its runtime (child_process stdio) does.
    ...(opts.input !== undefined ? { input: opts.input } : { stdin: fd === undefined ? 'ignore' : (fd as unknown as 'ignore') }),
  });
  if (fd !== undefined) void child.then(() => closeSync(fd));
  return child;
}

/** Runs the built CLI and returns what a user would see. */
export async function runCli(args: string[], opts: CliOptions = {}): Promise<CliResult> {
  const r = await spawnCli(args, opts);
  return { stdout: String(r.stdout), stderr: String(r.stderr), exitCode: r.exitCode ?? -1 };
}
