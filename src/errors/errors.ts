// Typed failures. Each carries a kind; src/errors/exit-codes.ts turns a kind into an exit code.

export type ErrorKind =
  | 'failure'
  | 'usage'
  | 'auth'
  | 'not_found'
  | 'rate_limited'
  | 'network'
  | 'partial'
  | 'interrupted'
  | 'stdout_closed'
  | 'server'
  | 'malformed';

export interface ErrorDetails {
  code?: string;
  status?: number;
  /** A command to run next, shown after the message as "run: <command>". */
  hint?: string;
  /** What to do next in words, when it is not one command; shown after the message as it is. */
  advice?: string;
  cause?: unknown;
}

export class CliError extends Error {
  readonly code: string | undefined;
  readonly status: number | undefined;
  readonly hint: string | undefined;
  readonly advice: string | undefined;

  constructor(
    readonly kind: ErrorKind,
    message: string,
    details: ErrorDetails = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = new.target.name;
    this.code = details.code;
    this.status = details.status;
    this.hint = details.hint;
    this.advice = details.advice;
  }
}

// A CliError subclass with a fixed kind and default code; the name comes from the class that extends it.
function kindOf(kind: ErrorKind, code: string) {
  return class extends CliError {
    constructor(message: string, details: ErrorDetails = {}) {
      super(kind, message, { code, ...details });
    }
  };
}

export class UsageError extends kindOf('usage', 'usage') {}

export class AuthError extends kindOf('auth', 'unauthorized') {}

export function noApiKeyError(envName: string): AuthError {
  return new AuthError(`no API key for environment "${envName}"`, {
    code: 'no_api_key',
    hint: `petstore auth login --env ${envName} (or set PETSTORE_API_KEY)`,
  });
}

export function refusedKeyFix(envName: string, keySource: 'PETSTORE_API_KEY' | 'config' | 'keyring' | undefined): Pick<ErrorDetails, 'hint' | 'advice'> {
  return keySource === 'PETSTORE_API_KEY'
    ? { advice: 'PETSTORE_API_KEY is set and overrides the stored key: fix or unset it' }
    : { hint: `petstore auth login --env ${envName}` };
}

export class NotFoundError extends kindOf('not_found', 'not_found') {}

export class RateLimitedError extends kindOf('rate_limited', 'rate_limited') {}

export class NetworkError extends kindOf('network', 'network') {}

export class PartialFailureError extends kindOf('partial', 'partial_failure') {}

export type StopSignal = 'SIGINT' | 'SIGTERM' | 'SIGHUP';

export class InterruptedError extends CliError {
  readonly signal: StopSignal | undefined;

  constructor(message = 'interrupted', details: ErrorDetails & { signal?: StopSignal } = {}) {
    super('interrupted', message, { code: 'interrupted', ...details });
    this.signal = details.signal;
  }
}

/** stdout's reader left (`| head -1`) before a run that writes its results there had finished (exit 141). */
export class StdoutClosedError extends kindOf('stdout_closed', 'stdout_closed') {}

export class ServerError extends kindOf('server', 'server_error') {}

export class MalformedResponseError extends kindOf('malformed', 'malformed_response') {}
