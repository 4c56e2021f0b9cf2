import { CliError, type ErrorKind, InterruptedError, type StopSignal } from './errors.js';

/** The public exit-code contract (README "Exit codes"). */
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

/** 128 + the signal's number, as a shell reports a process the signal ended. */
export const SIGNAL_EXIT: Record<StopSignal, number> = { SIGHUP: 129, SIGINT: ExitCode.interrupted, SIGTERM: 143 };

/** What each code tells a script; `petstore help exit-codes` (and the docs made from it) print this with the codes above. */
export const EXIT_CODE_MEANING: Record<keyof typeof ExitCode, string> = {
  ok: 'success (an empty list too)',
  failure: 'other failure: a server error (5xx), a malformed response, output or a journal that cannot be written, anything unexpected',
  usage:
    'usage or invalid input, nothing sent: unknown flag or command, invalid value, unknown environment, no base URL, broken config file; also a 400 or 405 from the server',
  partial: 'partial failure of a bulk run (pets add --file): some records failed, were invalid or have an unknown outcome',
  auth: 'authentication: no API key, the server answered 401/403, or auth login found no pet store API at the URL',
  notFound: 'not found (404)',
  rateLimited: 'rate limited, and gave up (retries used up, or the wait would exceed --max-wait); the message names the minute or the daily limit',
  network: 'network: connection refused, DNS, TLS, timeout; also a request whose outcome is unknown',
  interrupted: 'interrupted (Ctrl-C, SIGINT); the run winds down first',
  stdoutClosed:
    'stdout closed by its reader before a bulk run had written every record (128 + SIGPIPE); otherwise a reader that leaves early (| head -1) is no error',
};

/** The exit codes of the other signals that stop a run (SIGINT is `interrupted`). */
export const SIGNAL_MEANING: Record<Exclude<StopSignal, 'SIGINT'>, string> = {
  SIGHUP: 'stopped by SIGHUP (the terminal closed); winds down as for Ctrl-C',
  SIGTERM: "stopped by SIGTERM (a CI runner's timeout, kill); winds down as for Ctrl-C",
};

/**
 * The exit code for what a run threw. `stop` is why the run was aborted (the signal's reason): an
 * interruption exits with the code of the signal that caused it (130 SIGINT, 143 SIGTERM, 129 SIGHUP).
 */
export function exitCodeFor(error: unknown, stop?: unknown): number {
  if (!(error instanceof CliError)) return ExitCode.failure;
  if (error.kind === 'interrupted') {
    const signal = error instanceof InterruptedError && error.signal ? error.signal : stop instanceof InterruptedError ? stop.signal : undefined;
    if (signal) return SIGNAL_EXIT[signal];
  }
  return BY_KIND[error.kind];
}
