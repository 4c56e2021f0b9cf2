import { type Readable, Writable } from 'node:stream';
import { InterruptedError } from '../errors/errors.js';
import type { IO } from '../io/io.js';

type Terminal = Writable & { columns?: number; rows?: number };

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

/** A yes/no question on stderr, No by default; Ctrl-C or `signal` rejects with InterruptedError, Ctrl-D answers No. */
export async function confirm(io: { stdin: Readable; stderr: Writable }, question: string, signal?: AbortSignal): Promise<boolean> {
  const { default: ask } = await import('@inquirer/confirm');
  if (signal?.aborted) throw new InterruptedError();
  const plain = (text: string) => text;
  // Our signal and Ctrl-D both stop the prompt through this one.
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  signal?.addEventListener('abort', onAbort, { once: true });
  // Ctrl-D closes inquirer's readline without settling the prompt: answer No, as end of input did before.
  let ended = false;
  const onKey = (_: unknown, key?: { ctrl?: boolean; name?: string }) => {
    if (key?.ctrl && key.name === 'd') {
      ended = true;
      stop.abort();
    }
  };
  try {
    const answer = ask(
      {
        message: question,
        default: false,
        // Plain text, as every other line petstore writes to stderr; the hint reads [y/N].
        theme: {
          prefix: { idle: '?', done: '?' },
          style: { message: plain, answer: plain, defaultAnswer: (hint: string) => `[${hint}]`, error: (text: string) => `> ${text}` },
        },
      },
      { input: io.stdin, output: unendable(io.stderr), signal: stop.signal },
    );
    io.stdin.on('keypress', onKey);
    return await answer;
  } catch (error) {
    if (ended) return false;
    const name = (error as Error).name;
    // ExitPromptError: Ctrl-C (raw mode: no SIGINT) or the process being signalled; AbortPromptError: `signal`.
    if (name === 'ExitPromptError' || name === 'AbortPromptError') throw new InterruptedError();
    throw error;
  } finally {
    io.stdin.off('keypress', onKey);
    signal?.removeEventListener('abort', onAbort);
  }
}

export function noPromptReason(io: Pick<IO, 'stdinIsTTY'>, input: boolean): string {
  return !input ? '--no-input was given' : !io.stdinIsTTY ? 'stdin is not a terminal' : 'stderr is not a terminal';
}
