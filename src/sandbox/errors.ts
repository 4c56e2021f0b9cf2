// The sandbox's Error bodies, and the error of a sandbox that cannot start.

import { CliError } from '../errors/errors.js';

/** Every code the sandbox answers with, and its HTTP status (docs/sandbox.md, "Error codes"). */
const ERROR_CODES = {
  invalid_json: 400,
  invalid_body: 400,
  missing_field: 400,
  invalid_field: 400,
  unknown_field: 400,
  read_only_field: 400,
  invalid_parameter: 400,
  unknown_parameter: 400,
  unauthorized: 401,
  key_banned: 403,
  not_found: 404,
  unknown_path: 404,
  method_not_allowed: 405,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal: 500,
  storage_failed: 500,
  not_implemented: 501,
  injected_failure: 503,
  ids_exhausted: 507,
} as const;
type ErrorCode = keyof typeof ERROR_CODES;

/** An error answered with the interface's Error body `{code, message, status}`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    /** An ErrorCode; a free string only for failures injected by tests. */
    readonly code: ErrorCode | (string & {}),
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  body(): string {
    return JSON.stringify({ code: this.code, message: this.message, status: this.status });
  }
}

export function apiError(code: ErrorCode, message: string, headers?: Record<string, string>): ApiError {
  return new ApiError(ERROR_CODES[code], code, message, headers);
}

/** The sandbox could not start (port in use, unreadable or corrupt --data file, ...). */
export class SandboxStartError extends CliError {
  constructor(message: string, options: { cause: unknown }) {
    super('failure', message, { code: 'sandbox_start', cause: options.cause });
  }
}
