import type { Readable, Writable } from 'node:stream';

export type EnvVars = Readonly<Record<string, string | undefined>>;

/**
 * Where output goes and how it may look. Built once per invocation (from the
 * real process in src/cli.ts, from buffers in tests); nothing else reads
 * process.stdout, process.env or isTTY.
 */
export interface IO {
  stdout: Writable;
  stderr: Writable;
  stdin: Readable;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  stdinIsTTY: boolean;
  colorStdout: boolean;
  colorStderr: boolean;
  /** Animated progress on stderr is allowed. */
  spinner: boolean;
  /** A human can answer a prompt (stdin and stderr are TTYs, --no-input not given). */
  canPrompt: boolean;
  /** Terminal width of stdout when it is a TTY. */
  columns: number | undefined;
  /**
   * Aborted at the first failed write to stdout, with the error as its reason: EPIPE when its reader
   * exited (`| head -1`), ENOSPC when it is a file on a full disk. Such an error no longer crashes the
   * process with a stack trace: whoever writes a lot to stdout asks this signal what happened.
   */
  stdoutFailed: AbortSignal;
}

interface ColorInputs {
  isTTY: boolean;
  env: EnvVars;
  /** false when --no-color was given. */
  colorFlag?: boolean | undefined;
}

/** NO_COLOR, --no-color and TERM=dumb switch colour off; FORCE_COLOR forces it; otherwise a TTY gets colour. */
function colorEnabled({ isTTY, env, colorFlag }: ColorInputs): boolean {
  if (colorFlag === false) return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== '0' && force !== 'false') return true;
  if (force === '0' || force === 'false') return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.TERM === 'dumb') return false;
  return isTTY;
}

type Stdin = Readable & { isTTY?: boolean };

export interface IOInputs {
  stdout: Writable & { isTTY?: boolean; columns?: number };
  stderr: Writable & { isTTY?: boolean };
  /** The stream, or a function that makes it: Node builds process.stdin on first access (~4 ms). */
  stdin: Stdin | (() => Stdin);
  /**
   * Whether stdin is a terminal, when known without building the stream: a value, or a function
   * asked on first use (tty.isatty(0) loads tty and net, which most commands never need).
   */
  stdinIsTTY?: boolean | (() => boolean) | undefined;
  env: EnvVars;
  colorFlag?: boolean | undefined;
  input?: boolean | undefined;
  quiet?: boolean | undefined;
}

const watched = new WeakMap<Writable, AbortSignal>();

/**
 * One 'error' listener per stream (createIO may run twice over the same streams). process.stdout
 * reports a failed write as an 'error' event, again for every later write, and without a listener
 * that event is an uncaught exception.
 */
function writeFailures(stream: Writable): AbortSignal {
  let signal = watched.get(stream);
  if (!signal) {
    const failed = new AbortController();
    stream.on('error', (error: unknown) => {
      if (!failed.signal.aborted) failed.abort(error);
    });
    signal = failed.signal;
    watched.set(stream, signal);
  }
  return signal;
}

export function createIO(inputs: IOInputs): IO {
  const stdoutIsTTY = inputs.stdout.isTTY === true;
  const stderrIsTTY = inputs.stderr.isTTY === true;
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
  return {
    stdout: inputs.stdout,
    stderr: inputs.stderr,
    get stdin() {
      return resolveStdin();
    },
    stdoutIsTTY,
    stderrIsTTY,
    get stdinIsTTY() {
      return stdinIsTTY();
    },
    colorStdout: colorEnabled({ isTTY: stdoutIsTTY, env: inputs.env, colorFlag: inputs.colorFlag }),
    colorStderr: colorEnabled({ isTTY: stderrIsTTY, env: inputs.env, colorFlag: inputs.colorFlag }),
    spinner: stderrIsTTY && !dumb && inputs.quiet !== true,
    get canPrompt() {
      return stderrIsTTY && inputs.input !== false && stdinIsTTY();
    },
    columns: stdoutIsTTY ? inputs.stdout.columns : undefined,
    stdoutFailed: writeFailures(inputs.stdout),
  };
}
