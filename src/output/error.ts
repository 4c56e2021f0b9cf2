import { CliError } from '../errors/errors.js';
import { exitCodeFor } from '../errors/exit-codes.js';
import { stringifyJson } from '../json/int64.js';
import type { IO } from '../io/io.js';
import { Redactor } from './redact.js';
import { escapeControl } from './text.js';

export interface RenderErrorOptions {
  debug: boolean;
  json: boolean;
  red?: (s: string) => string;
  secrets?: readonly string[];
}

export function renderError(io: IO, error: unknown, opts: RenderErrorOptions): void {
  const redactor = new Redactor(opts.secrets ?? []);
  const scrub = (text: string) => redactor.text(text);
  const body = errorBody(error, scrub);
  // Advice is words ("try again after …"), a hint a command: only the command is introduced by "run:".
  const line = `${body.message}${body.advice ? `; ${body.advice}` : ''}${body.hint ? `; run: ${body.hint}` : ''}`;
  // One line, and nothing from a server (its message) can drive the terminal.
  io.stderr.write(`${opts.red ? opts.red('error:') : 'error:'} ${escapeControl(line.replace(/\s*\n\s*/g, ' '))}\n`);
  if (opts.json) {
    const json = stringifyJson({ error: body });
    io.stderr.write(`${io.stderrIsTTY ? escapeControl(json, 'json') : json}\n`);
  }
  if (opts.debug) writeStacks(io, error, scrub);
}

function errorBody(error: unknown, scrub: (text: string) => string) {
  const cli = error instanceof CliError ? error : undefined;
  return {
    code: cli ? (cli.code ?? cli.kind) : 'internal',
    message: scrub(cli ? cli.message : `unexpected error: ${(error as Error)?.message ?? String(error)}`),
    ...(cli?.status !== undefined ? { status: cli.status } : {}),
    exitCode: exitCodeFor(error),
    ...(cli?.advice ? { advice: scrub(cli.advice) } : {}),
    ...(cli?.hint ? { hint: scrub(cli.hint) } : {}),
  };
}

function writeStacks(io: IO, error: unknown, scrub: (text: string) => string): void {
  if (!(error instanceof Error) || !error.stack) return;
  io.stderr.write(`${escapeControl(scrub(error.stack), 'text')}\n`);
  for (let cause = error.cause; cause instanceof Error; cause = cause.cause) {
    io.stderr.write(`caused by: ${escapeControl(scrub(cause.stack ?? cause.message), 'text')}\n`);
  }
}
