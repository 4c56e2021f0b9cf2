import { type Readable, Writable } from 'node:stream';
import { InterruptedError } from '../errors/errors.js';
import type { EnvVars, IO } from '../io/io.js';

type Terminal = Writable & { columns?: number; rows?: number };
type PromptIO = { stdin: Readable; stderr: Writable };
type Context = { input: Readable; output: Writable; signal: AbortSignal };

/** The caller's stream, never ended: inquirer ends the stream it writes to when the prompt closes. */
function unendable(out: Terminal): Writable {
  const w = new Writable({
    write: (chunk: Buffer, _enc, done) => void out.write(chunk, done),
  });
  return Object.defineProperties(w, {
    isTTY: { get: () => (out as { isTTY?: boolean }).isTTY },
    columns: { get: () => out.columns },
    rows: { get: () => out.rows },
  });
}

const plain = (text: string) => text;

/** Plain text, as every other line petstore writes to stderr. */
export const PLAIN_THEME = {
  prefix: { idle: '?', done: '?' },
  style: { message: plain, answer: plain, highlight: plain, error: (text: string) => `> ${text}` },
};

// One inquirer prompt on stderr (`start` gets the context to pass it): Ctrl-C or `signal` rejects with
// InterruptedError; Ctrl-D, which closes inquirer's readline without settling the prompt, gives `atEnd()`.
export async function prompt<T>(io: PromptIO, start: (context: Context) => Promise<T>, atEnd: () => T, signal?: AbortSignal): Promise<T> {
  if (signal?.aborted) throw new InterruptedError();
  // Our signal and Ctrl-D both stop the prompt through this one.
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  signal?.addEventListener('abort', onAbort, { once: true });
  let ended = false;
  const onKey = (_: unknown, key?: { ctrl?: boolean; name?: string }) => {
    if (key?.ctrl && key.name === 'd') {
      ended = true;
      stop.abort();
    }
  };
  try {
    const answer = start({ input: io.stdin, output: unendable(io.stderr), signal: stop.signal });
    io.stdin.on('keypress', onKey);
    return await answer;
  } catch (error) {
    if (ended) return atEnd();
    const name = (error as Error).name;
    // ExitPromptError: Ctrl-C (raw mode: no SIGINT) or the process being signalled; AbortPromptError: `signal`.
    if (name === 'ExitPromptError' || name === 'AbortPromptError') throw new InterruptedError();
    throw error;
  } finally {
    io.stdin.off('keypress', onKey);
    signal?.removeEventListener('abort', onAbort);
  }
}

/** A yes/no question on stderr, No by default; Ctrl-C or `signal` rejects with InterruptedError, Ctrl-D answers No. */
export async function confirm(io: PromptIO, question: string, signal?: AbortSignal): Promise<boolean> {
  const { default: ask } = await import('@inquirer/confirm');
  const theme = { ...PLAIN_THEME, style: { ...PLAIN_THEME.style, defaultAnswer: (hint: string) => `[${hint}]` } };
  return prompt(
    io,
    (context) => ask({ message: question, default: false, theme }, context),
    () => false,
    signal,
  );
}

/** A person can answer a prompt: stdin and stderr are terminals, no --no-input, and not in CI (a CI runner may give a pty). */
export function canAsk(io: Pick<IO, 'canPrompt'>, env: EnvVars): boolean {
  return io.canPrompt && ['', '0', 'false'].includes((env.CI ?? '').trim().toLowerCase());
}

export function noPromptReason(io: Pick<IO, 'stdinIsTTY'>, input: boolean): string {
  return !input ? '--no-input was given' : !io.stdinIsTTY ? 'stdin is not a terminal' : 'stderr is not a terminal';
}
