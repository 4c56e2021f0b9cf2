import { CliError, type ErrorKind, InterruptedError, type StopSignal } from './errors.js';

export const ExitCode = {
  ok: 0,
  failure: 1,
  usage: 2,
  partial: 3,
  auth: 4,
  notFound: 5,
  rateLimited: 6,
  network: 7,
  interrupted: 130,
  /** 128 + SIGPIPE: what a shell reports for a writer whose reader left (`yes | head -1`). */
  stdoutClosed: 141,
} as const;

const BY_KIND: Record<ErrorKind, number> = {
  failure: ExitCode.failure,
  usage: ExitCode.usage,
  auth: ExitCode.auth,
  not_found: ExitCode.notFound,
  rate_limited: ExitCode.rateLimited,
  network: ExitCode.network,
  partial: ExitCode.partial,
  interrupted: ExitCode.interrupted,
  stdout_closed: ExitCode.stdoutClosed,
  server: ExitCode.failure,
  malformed: ExitCode.failure,
};

export const SIGNAL_EXIT: Record<StopSignal, number> = { SIGHUP: 129, SIGINT: ExitCode.interrupted, SIGTERM: 143 };

/** What each code tells a script: the README's table, the man page and `petstore help exit-codes` are made from it. */
export const EXIT_CODE_MEANING: Record<keyof typeof ExitCode, string> = {
  ok: 'success (also an empty list)',
  failure:
    'other failure: server error (5xx), malformed or non-JSON response, output, a seeding journal or results that cannot be written (disk full, I/O error: `> /dev/full`), unexpected error',
  usage:
    'usage or invalid input, nothing sent: unknown flag or command, missing argument, invalid value, an API key a header cannot carry, no base URL, unknown environment, broken config file or a config folder that cannot be made, a journal (`--results`) that cannot be opened, is the input, is in use, or already holds records without `--resume`; also a 400 or 405 (method not allowed for that path) from the server',
  partial: 'partial failure of a bulk operation (`pets add --file`): some records failed, were invalid or have an unknown outcome',
  auth: 'authentication: no API key (or the system keyring holding it cannot be read), the server answered 401/403, or `auth login` found no pet store API at the URL',
  notFound: 'not found (404)',
  rateLimited:
    'rate limited, and gave up (retries used up, or the wait exceeds `--max-wait`); the message names the minute or the daily limit and when it resets',
  network: 'network: connection refused, DNS, TLS, timeout; also a request that may or may not have reached the server (its outcome is unknown)',
  interrupted: 'interrupted (Ctrl-C, SIGINT); the run winds down first',
  stdoutClosed:
    'stdout closed by its reader (`| head -1`, also `2>&1 | head -1`) before `pets add --file` had sent (with `--dry-run`, listed) every record: the others were not sent (128 + SIGPIPE, what a shell shows for `yes | head -1`). Otherwise a reader that leaves early is no error, and a stderr whose reader left only loses its messages',
};

const SIGNAL_MEANING: Record<Exclude<StopSignal, 'SIGINT'>, string> = {
  SIGHUP: 'stopped by SIGHUP (the terminal closed); the run winds down as for Ctrl-C',
  SIGTERM: "stopped by SIGTERM (a CI runner's timeout, `kill`); the run winds down as for Ctrl-C",
};

export function exitCodeTable(): { code: number; meaning: string }[] {
  const codes = Object.entries(ExitCode).map(([name, code]) => ({ code, meaning: EXIT_CODE_MEANING[name as keyof typeof ExitCode] }));
  const signals = Object.entries(SIGNAL_MEANING).map(([signal, meaning]) => ({ code: SIGNAL_EXIT[signal as StopSignal], meaning }));
  return [...codes, ...signals].sort((a, b) => a.code - b.code);
}

export function exitCodeFor(error: unknown, stop?: unknown): number {
  if (!(error instanceof CliError)) return ExitCode.failure;
  if (error.kind === 'interrupted') {
    const signal = error instanceof InterruptedError && error.signal ? error.signal : stop instanceof InterruptedError ? stop.signal : undefined;
    if (signal) return SIGNAL_EXIT[signal];
  }
  return BY_KIND[error.kind];
}
