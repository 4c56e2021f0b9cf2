import { PassThrough, Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { run } from '../../src/cli.js';
import type { Clock } from '../../src/time/clock.js';
import { systemClock } from '../../src/time/clock.js';

export interface InProcessOptions {
  env?: Record<string, string | undefined>;
  stdoutTTY?: boolean;
  stderrTTY?: boolean;
  stdinTTY?: boolean;
  input?: string;
  clock?: Clock;
  signal?: AbortSignal;
  dispatcher?: Dispatcher;
  columns?: number;
}

export interface InProcessResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

function capture(isTTY: boolean, columns?: number) {
  const stream = new PassThrough() as PassThrough & { isTTY?: boolean; columns?: number };
  let text = '';
  stream.on('data', (c: Buffer) => (text += c.toString('utf8')));
  if (isTTY) {
    stream.isTTY = true;
    stream.columns = columns ?? 100;
  }
  return { stream, text: () => text };
}

// The keyring binding reads the process's own environment, not the run's: in-process runs never reach a
// session's real keyring (test/e2e/keyring.test.ts tests it against one of its own).
delete process.env.DBUS_SESSION_BUS_ADDRESS;

/** Runs the CLI in this process with buffered, optionally TTY-flagged, streams. */
export async function runInProcess(args: string[], opts: InProcessOptions = {}): Promise<InProcessResult> {
  const out = capture(opts.stdoutTTY ?? false, opts.columns);
  const err = capture(opts.stderrTTY ?? false);
  const stdin = Readable.from(opts.input !== undefined ? [opts.input] : []) as Readable & { isTTY?: boolean };
  if (opts.stdinTTY) stdin.isTTY = true;
  const exitCode = await run(args, {
    stdout: out.stream,
    stderr: err.stream,
    stdin,
    env: opts.env ?? {},
    clock: opts.clock ?? systemClock,
    signal: opts.signal ?? new AbortController().signal,
    ...(opts.dispatcher ? { dispatcher: opts.dispatcher } : {}),
  });
  await new Promise((r) => setImmediate(r));
  return { stdout: out.text(), stderr: err.text(), exitCode };
}
