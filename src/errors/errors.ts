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

export class UsageError extends CliError {
  constructor(message: string, details: ErrorDetails = {}) {
    super('usage', message, { code: 'usage', ...details });
  }
}

export class AuthError extends CliError {
  constructor(message: string, details: ErrorDetails = {}) {
    super('auth', message, { code: 'unauthorized', ...details });
  }
}

export function noApiKeyError(envName: string): AuthError {
  return new AuthError(`no API key for environment "${envName}"`, {
    code: 'no_api_key',
    hint: `petstore auth login --env ${envName} (or set PETSTORE_API_KEY)`,
  });
}

/** What to do about a refused key: log in again, unless it came from PETSTORE_API_KEY (which overrides any stored key). */
export function refusedKeyFix(envName: string, keySource: 'PETSTORE_API_KEY' | 'config' | undefined): Pick<ErrorDetails, 'hint' | 'advice'> {
  return keySource === 'PETSTORE_API_KEY'
    ? { advice: 'PETSTORE_API_KEY is set and overrides the stored key: fix or unset it' }
    : { hint: `petstore auth login --env ${envName}` };
}

export class NotFoundError extends CliError {
  constructor(message: string, details: ErrorDetails = {}) {
    super('not_found', message, { code: 'not_found', ...details });
  }
}

export class RateLimitedError extends CliError {
  readonly resetAt: number | undefined;
  constructor(message: string, details: ErrorDetails & { resetAt?: number } = {}) {
    super('rate_limited', message, { code: 'rate_limited', ...details });
    this.resetAt = details.resetAt;
  }
}

export class NetworkError extends CliError {
  constructor(message: string, details: ErrorDetails = {}) {
    super('network', message, { code: 'network', ...details });
  }
}

export class PartialFailureError extends CliError {
  constructor(message: string, details: ErrorDetails = {}) {
    super('partial', message, { code: 'partial_failure', ...details });
  }
}

/** The signals that stop a run gracefully (src/main.ts); each has its own exit code. */
export type StopSignal = 'SIGINT' | 'SIGTERM' | 'SIGHUP';

export class InterruptedError extends CliError {
  readonly signal: StopSignal | undefined;

  constructor(message = 'interrupted', details: ErrorDetails & { signal?: StopSignal } = {}) {
    const { signal, ...rest } = details;
    super('interrupted', message, { code: 'interrupted', ...rest });
    this.signal = signal;
  }
}

/** stdout's reader left (`| head -1`) before a run that writes its results there had finished (exit 141). */
export class StdoutClosedError extends CliError {
  constructor(message: string, details: ErrorDetails = {}) {
    super('stdout_closed', message, { code: 'stdout_closed', ...details });
  }
}

/** A 5xx or an unexpected status with an API error body. */
export class ServerError extends CliError {
  constructor(message: string, details: ErrorDetails = {}) {
    super('server', message, { code: 'server_error', ...details });
  }
}

/** The server answered, but not with what the interface promises. */
export class MalformedResponseError extends CliError {
  constructor(message: string, details: ErrorDetails = {}) {
    super('malformed', message, { code: 'malformed_response', ...details });
  }
}
