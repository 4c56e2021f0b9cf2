// Which operation a request is for, and whose key it carries.

import { apiError } from './errors.js';

export type Route =
  | { kind: 'listPets' }
  | { kind: 'createPet' }
  | { kind: 'getPet'; segment: string }
  | { kind: 'notImplemented'; what: string }
  | { kind: 'methodNotAllowed'; allow: string }
  | { kind: 'unknownPath' };

function clip(text: string, max = 120): string {
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}

export function resolveRoute(method: string, path: string): Route {
  if (path === '/v1/pets') {
    if (method === 'GET') return { kind: 'listPets' };
    if (method === 'POST') return { kind: 'createPet' };
    return { kind: 'methodNotAllowed', allow: 'GET, POST' };
  }
  const segment = path.startsWith('/v1/pets/') ? path.slice('/v1/pets/'.length) : '';
  if (segment.length > 0 && !segment.includes('/')) {
    return method === 'GET' ? { kind: 'getPet', segment } : { kind: 'methodNotAllowed', allow: 'GET' };
  }
  if (path === '/v1/store/orders' || path.startsWith('/v1/store/orders/')) return { kind: 'notImplemented', what: 'store orders (GET /store/orders)' };
  if (path === '/v1/categories' || path.startsWith('/v1/categories/')) return { kind: 'notImplemented', what: 'categories' };
  return { kind: 'unknownPath' };
}

/** The error answer of a request no operation takes (it needs no key). */
export function routeError(route: Route, method: string, path: string): Error {
  if (route.kind === 'methodNotAllowed') {
    return apiError('method_not_allowed', `method ${method} is not allowed on ${clip(path)}; allowed: ${route.allow}`, { allow: route.allow });
  }
  return apiError('unknown_path', `no such path: ${clip(path)} (the sandbox serves GET /v1/pets, POST /v1/pets and GET /v1/pets/{petId})`);
}

/**
 * The key of an `Authorization: Bearer <key>` header (any case of the scheme), or undefined when it is
 * not one of `keys`.
 */
export function bearerKey(authorization: string | undefined, keys: ReadonlySet<string>): string | undefined {
  const token = authorization === undefined ? undefined : /^\s*bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
  return token !== undefined && keys.has(token) ? token : undefined;
}

/** The 401 of a request without a recognised key. */
export function unauthorized(authorization: string | undefined): Error {
  if (authorization === undefined || authorization.trim() === '') {
    return apiError('unauthorized', 'missing API key: send it as "Authorization: Bearer <key>"', { 'www-authenticate': 'Bearer realm="petstore"' });
  }
  if (!/^\s*bearer\s+\S+\s*$/i.test(authorization)) {
    return apiError('unauthorized', 'the Authorization header must use the Bearer scheme: "Authorization: Bearer <key>"', {
      'www-authenticate': 'Bearer realm="petstore"',
    });
  }
  return apiError('unauthorized', 'invalid API key: it is not one of the keys this sandbox accepts', {
    'www-authenticate': 'Bearer realm="petstore", error="invalid_token"',
  });
}
