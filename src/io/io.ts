import type { Readable } from 'node:stream';
import { type Output, type Stream, streamOutput } from './stdio.js';

export type EnvVars = Readonly<Record<string, string | undefined>>;

export interface IO {
  stdout: Output;
  stderr: Output;
  stdin: Readable;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  stdinIsTTY: boolean;
  colorStdout: boolean;
  colorStderr: boolean;
  spinner: boolean;
  /** A human can answer a prompt (stdin and stderr are TTYs, --no-input not given). */
  canPrompt: boolean;
  columns: number | undefined;
  /** Aborted at the first failed write to stdout (EPIPE, ENOSPC), with the error: src/cli.ts checks it after every command. */
  stdoutFailed: AbortSignal;
}

/** NO_COLOR, --no-color and TERM=dumb switch colour off; FORCE_COLOR forces it; otherwise a TTY gets colour. */
function colorEnabled(isTTY: boolean, env: EnvVars, colorFlag: boolean | undefined): boolean {
  if (colorFlag === false) return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== '0' && force !== 'false';
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.TERM === 'dumb') return false;
  return isTTY;
}

type Stdin = Readable & { isTTY?: boolean };

export interface IOInputs {
  stdout: Stream | Output;
  stderr: Stream | Output;
  stdin: Stdin | (() => Stdin);
  stdinIsTTY?: boolean | (() => boolean) | undefined;
  env: EnvVars;
  colorFlag?: boolean | undefined;
  input?: boolean | undefined;
  quiet?: boolean | undefined;
  /** Whether stdout and stderr are one pipe (`2>&1 | head -1`), asked at the first EPIPE. Absent: they are not. */
  sharedPipe?: (() => boolean) | undefined;
}

const joined = new WeakSet<Output>();

const output = (given: Stream | Output): Output => ('fail' in given ? given : streamOutput(given));

/** stdout and stderr on one pipe: the reader leaving (EPIPE) on either is the reader leaving both. */
function joinOnEpipe(stdout: Output, stderr: Output, sharedPipe: () => boolean): void {
  if (stdout === stderr || joined.has(stdout)) return;
  joined.add(stdout);
  let shared: boolean | undefined;
  const follow = (from: Output, to: Output) => {
    from.failed.addEventListener(
      'abort',
      () => {
        if (to.failed.aborted || (from.failed.reason as NodeJS.ErrnoException | undefined)?.code !== 'EPIPE') return;
        shared ??= sharedPipe();
        if (shared) to.fail(from.failed.reason);
      },
      { once: true },
    );
  };
  follow(stdout, stderr);
  follow(stderr, stdout);
}

export function createIO(inputs: IOInputs): IO {
  const stdout = output(inputs.stdout);
  const stderr = output(inputs.stderr);
  const stdoutIsTTY = stdout.isTTY;
  const stderrIsTTY = stderr.isTTY;
  const source = inputs.stdin;
  let stdin = typeof source === 'function' ? undefined : source;
  const resolveStdin = (): Stdin => (stdin ??= (source as () => Stdin)());
  let stdinTTY: boolean | undefined;
  const stdinIsTTY = (): boolean => {
    const given = inputs.stdinIsTTY;
    stdinTTY ??= typeof given === 'function' ? given() : (given ?? resolveStdin().isTTY === true);
    return stdinTTY;
  };
  const dumb = inputs.env.TERM === 'dumb';
  if (inputs.sharedPipe) joinOnEpipe(stdout, stderr, inputs.sharedPipe);
  return {
    stdout,
    stderr,
    get stdin() {
      return resolveStdin();
    },
    stdoutIsTTY,
    stderrIsTTY,
    get stdinIsTTY() {
      return stdinIsTTY();
    },
    colorStdout: colorEnabled(stdoutIsTTY, inputs.env, inputs.colorFlag),
    colorStderr: colorEnabled(stderrIsTTY, inputs.env, inputs.colorFlag),
    spinner: stderrIsTTY && !dumb && inputs.quiet !== true,
    get canPrompt() {
      return stderrIsTTY && inputs.input !== false && stdinIsTTY();
    },
    columns: stdoutIsTTY ? stdout.stream.columns : undefined,
    stdoutFailed: stdout.failed,
  };
}
