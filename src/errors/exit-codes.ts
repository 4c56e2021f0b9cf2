import { CliError, type ErrorKind } from './errors.js';

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

export function exitCodeFor(error: unknown): number {
  if (error instanceof CliError) return BY_KIND[error.kind];
  return ExitCode.failure;
}
