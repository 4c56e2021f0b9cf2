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
