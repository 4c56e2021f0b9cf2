// The interface's operations as the sandbox answers them: which operation a request is for, its key,
// its rate limit, then GET /pets, POST /pets or GET /pets/{petId}. Every refusal is the document's Error body.

import { GET_PET_SUNSET } from '../contract/petstore.js';
import { stringifyJson } from '../json/int64.js';
import type { Pet } from '../pets/pet.js';
import { checkContentType, ClientGone, readBody } from './body.js';
import type { DataLog } from './data-log.js';
import { ApiError, apiError, SandboxOptionError } from './errors.js';
import { formatDuration, type Settings } from './options.js';
import type { Decision, QuotaKeeper } from './rate-limit.js';
import type { Exchange, Recorder } from './recorder.js';
import type { PetStore } from './store.js';
import { expectNoQuery, parseBody, parseListQuery, parsePetId, validateNewPet } from './validate.js';

/** An answer to send: the rate-limit headers and Content-Type/Length are added when it is sent. */
export interface Answer {
  status: number;
  body: string;
  headers: Record<string, string>;
  errorCode?: string;
}

/** A test hook's failure: count requests (default 1) answered status (503) with code (injected_failure), and Retry-After if given. */
export type InjectedFailure = { count?: number; status?: number; code?: string; retryAfter?: number };

type Route =
  | { kind: 'listPets' | 'createPet' | 'unknownPath' }
  | { kind: 'getPet'; segment: string }
  | { kind: 'notImplemented'; what: string }
  | { kind: 'methodNotAllowed'; allow: string };

/** GET /pets/{petId} is deprecated, with the removal date of the interface (x-sunset) as an HTTP date. */
const DEPRECATED = { deprecation: 'true', sunset: new Date(`${GET_PET_SUNSET}T00:00:00Z`).toUTCString() };
const BEARER = /^\s*bearer\s+(\S+)\s*$/i;

function resolveRoute(method: string, path: string): Route {
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

/** The error of a request no operation takes (it needs no key). */
function routeError(route: Route, method: string, path: string): ApiError {
  const shown = path.length > 120 ? `${path.slice(0, 117)}...` : path;
  if (route.kind === 'methodNotAllowed') {
    return apiError('method_not_allowed', `method ${method} is not allowed on ${shown}; allowed: ${route.allow}`, { allow: route.allow });
  }
  return apiError('unknown_path', `no such path: ${shown} (the sandbox serves GET /v1/pets, POST /v1/pets and GET /v1/pets/{petId})`);
}

/** The 401 of a request without a recognised key. */
function unauthorized(authorization: string | undefined): ApiError {
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

export class PetsApi {
  readonly #keys: ReadonlySet<string>;
  readonly #failures: Required<InjectedFailure>[] = [];

  constructor(
    private readonly settings: Settings,
    private readonly store: PetStore,
    private readonly log: DataLog | undefined,
    private readonly limiter: QuotaKeeper,
    private readonly stats: Recorder['stats'],
    private readonly onError: (error: unknown) => void,
  ) {
    this.#keys = new Set(settings.keys);
  }

  /** The next requests fail with an Error body (before auth and limits, not counted). */
  failNext({ count = 1, status = 503, code = 'injected_failure', retryAfter = 0 }: InjectedFailure): void {
    this.#failures.push({ count, status, code, retryAfter });
  }

  /** The answer to `ex`; rejects with ClientGone when there is no one left to answer. */
  async answer(ex: Exchange): Promise<Answer> {
    const route = resolveRoute(ex.method, ex.path);
    const answer = await this.#operate(ex, route).catch((error: unknown): Answer => {
      if (error instanceof ClientGone) throw error;
      const e = error instanceof ApiError ? error : apiError('internal', `internal sandbox error: ${(error as Error)?.message ?? String(error)}`);
      return { status: e.status, body: e.body(), headers: e.headers, errorCode: e.code };
    });
    if (route.kind === 'getPet') answer.headers = { ...DEPRECATED, ...answer.headers };
    return answer;
  }

  async #operate(ex: Exchange, route: Route): Promise<Answer> {
    const failure = this.#failures[0];
    if (failure !== undefined) {
      if (--failure.count <= 0) this.#failures.shift();
      const headers: Record<string, string> = failure.retryAfter > 0 ? { 'retry-after': String(failure.retryAfter) } : {};
      throw new ApiError(failure.status, failure.code, `injected failure (test hook): HTTP ${failure.status}`, headers);
    }
    const authorization = ex.req.headers.authorization;
    const token = authorization === undefined ? undefined : BEARER.exec(authorization)?.[1];
    ex.key = token !== undefined && this.#keys.has(token) ? token : undefined;
    if (ex.key === undefined) {
      if (route.kind === 'unknownPath' || route.kind === 'methodNotAllowed') throw routeError(route, ex.method, ex.path);
      throw unauthorized(authorization);
    }
    // Every allowed request counts, whatever its outcome.
    const decision = this.limiter.check(ex.key, ex.now);
    ex.rate = decision.headers;
    if (decision.kind !== 'allow') throw this.#refusal(decision);
    switch (route.kind) {
      case 'listPets': {
        const query = parseListQuery(ex.search);
        return { status: 200, body: stringifyJson(this.store.list(query.limit, query.status)), headers: {} };
      }
      case 'getPet': {
        const id = parsePetId(route.segment);
        expectNoQuery(ex.search);
        const pet = this.store.get(id);
        if (pet === undefined) throw apiError('not_found', `pet ${id} not found`);
        return { status: 200, body: stringifyJson(pet), headers: {} };
      }
      case 'createPet':
        return this.#createPet(ex);
      case 'notImplemented':
        throw apiError('not_implemented', `${route.what} is only named by the interface document; the sandbox does not implement it`);
      default:
        throw routeError(route, ex.method, ex.path);
    }
  }

  /** The 429 or 403 of a request the limiter refused. */
  #refusal(decision: Exclude<Decision, { kind: 'allow' }>): ApiError {
    const { limits } = this.settings;
    const headers = { 'retry-after': String(decision.retryAfter) };
    if (decision.kind === 'limited') {
      this.stats.count429++;
      const what = decision.which === 'day' ? `${limits.perDay} requests per day` : `${limits.perMinute} requests per ${formatDuration(limits.windowMs)}`;
      return apiError('rate_limited', `rate limit of ${what} exceeded; retry after ${decision.retryAfter}s`, headers);
    }
    this.stats.count403bans++;
    if (decision.newBan) this.stats.bansIssued++;
    const message = decision.newBan
      ? `API key banned for ${limits.banSeconds}s: it sent a request before the reset time its 429 announced; retry after ${decision.retryAfter}s`
      : `API key is banned for retrying too early after a 429; retry after ${decision.retryAfter}s (requests during the ban do not extend it)`;
    return apiError('key_banned', message, headers);
  }

  /** A create: stored (with a data file, once its line is written) before its 201. */
  async #createPet(ex: Exchange): Promise<Answer> {
    expectNoQuery(ex.search);
    checkContentType(ex.req.headers['content-type']);
    ex.body = await readBody(ex.req);
    const pet: Pet = { id: this.store.takeId(), ...validateNewPet(parseBody(ex.body)) };
    const json = stringifyJson(pet);
    try {
      this.log?.append(`${json}\n`);
    } catch (error) {
      this.onError(error);
      throw apiError('storage_failed', `the pet was not stored (${(error as Error).message}); nothing was created`);
    }
    this.store.add(pet);
    this.stats.created++;
    return { status: 201, body: json, headers: { location: `/v1/pets/${pet.id}` } };
  }

  /** Stores pets directly (no HTTP, no limits); a failed write of the data file is logged. */
  seed(pets: ReadonlyArray<{ name: string; categoryId: bigint | number; status?: string }>): Pet[] {
    const inputs = pets.map((p, i) => {
      try {
        return validateNewPet(p);
      } catch (error) {
        throw new SandboxOptionError(`seed: pet ${i} is not a valid NewPet: ${(error as Error).message}`);
      }
    });
    return inputs.map((input) => {
      const pet: Pet = { id: this.store.takeId(), ...input };
      this.store.add(pet);
      try {
        this.log?.append(`${stringifyJson(pet)}\n`);
      } catch (error) {
        this.onError(error);
      }
      return { ...pet };
    });
  }
}
