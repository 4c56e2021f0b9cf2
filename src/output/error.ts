import { CliError } from '../errors/errors.js';
import { exitCodeFor } from '../errors/exit-codes.js';
import { stringifyJson } from '../json/int64.js';
import type { IO } from '../io/io.js';
import { Redactor } from './redact.js';
import { escapeControl } from './text.js';

export interface RenderErrorOptions {
  debug: boolean;
  /** -o json/ndjson: also print the error as one JSON object. */
  json: boolean;
  red?: (s: string) => string;
  /** Texts never to print (the API keys this run knows): masked in every form wherever they appear (redact.ts). */
  secrets?: readonly string[];
}

/** One line on stderr (plus a JSON object with -o json); stack traces only with --debug. */
export function renderError(io: IO, error: unknown, opts: RenderErrorOptions): void {
  const redactor = new Redactor(opts.secrets ?? []);
  const scrub = (text: string) => redactor.text(text);
  const message = scrub(error instanceof CliError ? error.message : `unexpected error: ${(error as Error)?.message ?? String(error)}`);
  // Advice is words ("try again after …"), a hint a command: only the command is introduced by "run:".
  const advice = error instanceof CliError && error.advice ? `; ${scrub(error.advice)}` : '';
  const hint = advice + (error instanceof CliError && error.hint ? `; run: ${scrub(error.hint)}` : '');
  const prefix = opts.red ? opts.red('error:') : 'error:';
  // One line, and nothing from a server (its message) can drive the terminal.
  io.stderr.write(`${prefix} ${escapeControl(`${message}${hint}`.replace(/\s*\n\s*/g, ' '))}\n`);
  if (opts.json) {
    const body = {
      error: {
        code: error instanceof CliError ? (error.code ?? error.kind) : 'internal',
        message,
        ...(error instanceof CliError && error.status !== undefined ? { status: error.status } : {}),
        exitCode: exitCodeFor(error),
        ...(error instanceof CliError && error.advice ? { advice: scrub(error.advice) } : {}),
        ...(error instanceof CliError && error.hint ? { hint: scrub(error.hint) } : {}),
      },
    };
    const json = stringifyJson(body);
    io.stderr.write(`${io.stderrIsTTY ? escapeControl(json, 'json') : json}\n`);
  }
  if (opts.debug && error instanceof Error && error.stack) {
    io.stderr.write(`${escapeControl(scrub(error.stack), 'text')}\n`);
    let cause = error.cause;
    while (cause instanceof Error) {
      io.stderr.write(`caused by: ${escapeControl(scrub(cause.stack ?? cause.message), 'text')}\n`);
      cause = cause.cause;
    }
  }
}
