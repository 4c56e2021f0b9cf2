import { AuthError, type CliError, MalformedResponseError, NotFoundError, RateLimitedError, refusedKeyFix, ServerError, UsageError } from '../errors/errors.js';
import type { ApiClientContext } from '../http/api-client.js';
import { apiErrorBody, isBan } from '../http/error-body.js';
import type { ApiResponse } from '../transport/exchange.js';
import { firstValue } from '../wire/headers.js';

/** A body the server labelled JSON that does not parse (truncated or corrupt) versus one that is not JSON at all. */
function unparsedBody(res: ApiResponse): string {
  const type = firstValue(res.headers['content-type'])?.split(';')[0]?.trim() || 'no content type';
  return /\bjson\b/i.test(type) ? `invalid JSON (${type})` : `a non-JSON body (${type})`;
}

/** A server that echoes the request's Authorization header in its message must not get the key printed. */
function withoutCredentials(text: string): string {
  return text.replace(/\b(Bearer|Basic)\s+[^\s"',;)]+/gi, '$1 ****');
}

/** One line: the server's message, its code and the HTTP status. */
export function describeResponse(res: ApiResponse): { message: string; code: string | undefined } {
  const body = apiErrorBody(res);
  if (body) return { message: `${withoutCredentials(body.message)} (${body.code}, HTTP ${res.status})`, code: body.code };
  if (res.text.length === 0) return { message: `HTTP ${res.status} with an empty body`, code: undefined };
  const what = res.isJson ? 'a JSON body that is not an Error object (no code and message)' : unparsedBody(res);
  return { message: `HTTP ${res.status} with ${what}`, code: undefined };
}

/** The server's message already lists the allowed methods (the sandbox's does). */
function mentionsAll(message: string, allow: string): boolean {
  return allow.split(',').every((m) => message.includes(m.trim()));
}

/** Maps a non-2xx response to the typed error that decides the exit code; a 401's fix depends on where the key came from. */
export function errorForResponse(res: ApiResponse, ctx: ApiClientContext): CliError {
  const { message, code } = describeResponse(res);
  const details = { status: res.status, code: code ?? `http_${res.status}` };
  switch (true) {
    case res.status === 400 || res.status === 413 || res.status === 422:
      return new UsageError(`the server rejected the request: ${message}`, details);
    case res.status === 401:
      return new AuthError(`authentication failed: ${message}`, { ...details, ...refusedKeyFix(ctx.envName, ctx.keySource) });
    case isBan(res):
      return new RateLimitedError(`the API key is temporarily banned for repeating requests after a 429: ${message}`, details);
    case res.status === 403:
      return new AuthError(`access denied: ${message}`, { ...details, hint: `petstore auth status --env ${ctx.envName}` });
    case res.status === 404:
      return new NotFoundError(`not found: ${message}`, details);
    case res.status === 429:
      return new RateLimitedError(`rate limited: ${message}`, details);
    // The request's method, not the server, is at fault: the same request will never succeed (exit 2, as a 400).
    case res.status === 405: {
      const allow = firstValue(res.headers.allow);
      return new UsageError(`method not allowed by the server: ${message}${allow && !mentionsAll(message, allow) ? `; allowed: ${allow}` : ''}`, details);
    }
    default:
      return new ServerError(`server error: ${message}`, details);
  }
}

/** What a body that is not the expected one is, in a few words. */
export function bodyKind(res: ApiResponse): string {
  return res.isJson ? 'JSON of the wrong shape' : res.text.length === 0 ? 'an empty body' : unparsedBody(res);
}

/** Reports a 2xx whose body is not what the interface promises. */
export function malformed(res: ApiResponse, what: string): MalformedResponseError {
  return new MalformedResponseError(`malformed response: expected ${what}, got ${bodyKind(res)} (HTTP ${res.status})`, { status: res.status });
}
