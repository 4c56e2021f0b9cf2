// Which operation a request is for, whose key it carries, and the Error bodies of refusals (server.ts answers).

import { GET_PET_SUNSET } from '../contract/petstore.js';
import { type ApiError, apiError } from './errors.js';
import { formatDuration, type Limits } from './options.js';
import type { Decision } from './rate-limit.js';

/** An answer to send: the rate-limit headers and Content-Type/Length are added when it is sent. */
export interface Answer {
  status: number;
  body: string;
  headers: Record<string, string>;
  errorCode?: string;
}

/** A test hook's failure: count requests (default 1) answered status (503) with code (injected_failure), and Retry-After if given. */
export type InjectedFailure = { count?: number; status?: number; code?: string; retryAfter?: number };

export type Route =
  | { kind: 'listPets' | 'createPet' | 'unknownPath' }
  | { kind: 'getPet'; segment: string }
  | { kind: 'notImplemented'; what: string }
  | { kind: 'methodNotAllowed'; allow: string };

/** GET /pets/{petId} is deprecated, with the removal date of the interface (x-sunset) as an HTTP date. */
export const DEPRECATED = { deprecation: 'true', sunset: new Date(`${GET_PET_SUNSET}T00:00:00Z`).toUTCString() };
const BEARER = /^\s*bearer\s+(\S+)\s*$/i;

export function resolveRoute(method: string, path: string): Route {
  if (path === '/v1/pets') {
    if (method === 'GET') return { kind: 'listPets' };
    return method === 'POST' ? { kind: 'createPet' } : { kind: 'methodNotAllowed', allow: 'GET, POST' };
  }
  const segment = path.startsWith('/v1/pets/') ? path.slice('/v1/pets/'.length) : '';
  if (segment.length > 0 && !segment.includes('/')) {
    return method === 'GET' ? { kind: 'getPet', segment } : { kind: 'methodNotAllowed', allow: 'GET' };
  }
  if (path === '/v1/store/orders' || path.startsWith('/v1/store/orders/')) return { kind: 'notImplemented', what: 'store orders (GET /store/orders)' };
  if (path === '/v1/categories' || path.startsWith('/v1/categories/')) return { kind: 'notImplemented', what: 'categories' };
  return { kind: 'unknownPath' };
}

/** The error of a request no operation takes (it needs no key). */
export function routeError(route: Route, method: string, path: string): ApiError {
  const shown = path.length > 120 ? `${path.slice(0, 117)}...` : path;
  if (route.kind === 'methodNotAllowed') {
    return apiError('method_not_allowed', `method ${method} is not allowed on ${shown}; allowed: ${route.allow}`, { allow: route.allow });
  }
  return apiError('unknown_path', `no such path: ${shown} (the sandbox serves GET /v1/pets, POST /v1/pets and GET /v1/pets/{petId})`);
}

export function unauthorized(authorization: string | undefined): ApiError {
  const challenge = { 'www-authenticate': 'Bearer realm="petstore"' };
  if (authorization === undefined || authorization.trim() === '') {
    return apiError('unauthorized', 'missing API key: send it as "Authorization: Bearer <key>"', challenge);
  }
  if (!BEARER.test(authorization)) {
    return apiError('unauthorized', 'the Authorization header must use the Bearer scheme: "Authorization: Bearer <key>"', challenge);
  }
  return apiError('unauthorized', 'invalid API key: it is not one of the keys this sandbox accepts', {
    'www-authenticate': 'Bearer realm="petstore", error="invalid_token"',
  });
}

/** The key of an `Authorization: Bearer <key>` header (any case of the scheme) when it is one of `keys`. */
export function bearerKey(authorization: string | undefined, keys: readonly string[]): string | undefined {
  const token = authorization === undefined ? undefined : BEARER.exec(authorization)?.[1];
  return token !== undefined && keys.includes(token) ? token : undefined;
}

/** The 429 or 403 of a request the limiter refused. */
export function refusal(decision: Exclude<Decision, { kind: 'allow' }>, limits: Limits): ApiError {
  const headers = { 'retry-after': String(decision.retryAfter) };
  if (decision.kind === 'limited') {
    const what = decision.which === 'day' ? `${limits.perDay} requests per day` : `${limits.perMinute} requests per ${formatDuration(limits.windowMs)}`;
    return apiError('rate_limited', `rate limit of ${what} exceeded; retry after ${decision.retryAfter}s`, headers);
  }
  const message = decision.newBan
    ? `API key banned for ${limits.banSeconds}s: it sent a request before the reset time its 429 announced; retry after ${decision.retryAfter}s`
    : `API key is banned for retrying too early after a 429; retry after ${decision.retryAfter}s (requests during the ban do not extend it)`;
  return apiError('key_banned', message, headers);
}
