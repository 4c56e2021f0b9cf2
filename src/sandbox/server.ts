// The sandbox: a local, in-process implementation of the pet store interface
// (GET/POST /v1/pets, GET /v1/pets/{petId}) with the document's auth, errors,
// rate limits and ban, for trying the CLI and for tests. Plain node:http.

import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toInt64 } from '../json/int64.js';
import { ApiError, apiError, SandboxOptionError, SandboxStartError } from './errors.js';
import { DataLog } from './data-log.js';
import { EndOfTurn } from './end-of-turn.js';
import { loadData } from './persist.js';
import { QuotaKeeper, type RateHeaders } from './rate-limit.js';
import { PetStore, type Reserved } from './store.js';
import { PLAN_LIMITS, PLANS, isPetStatus, petText, type NewPet, type Pet, type Plan } from './types.js';
import { bodyText, expectNoQuery, parseBody, parseListQuery, parsePetId, readNewPetText, validateNewPet } from './validate.js';
import { GET_PET_SUNSET } from '../contract/petstore.js';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The removal date of GET /pets/{petId} announced by the document. */
// The removal date of the deprecated getPet, from the interface (openapi/petstore.yaml x-sunset), as an HTTP date.
const GET_PET_SUNSET_HEADER = new Date(`${GET_PET_SUNSET}T00:00:00Z`).toUTCString();
const DEFAULT_MAX_BODY_BYTES = 64 * 1024;
const DEFAULT_BAN_GRACE_MS = 100;
const DEFAULT_RECORD_LIMIT = 10_000;

export interface SandboxOptions {
  /** Interface to listen on; 127.0.0.1 by default. */
  host?: string;
  /** Port; 0 (the default here) picks a free one. */
  port?: number;
  /** Accepted API keys; when empty one is generated. */
  keys?: string[];
  plan?: Plan;
  /** Overrides the plan's requests per window (per minute). */
  perMinute?: number;
  /** Overrides the plan's requests per day. */
  perDay?: number;
  /** Length of the per-minute window in ms (default 60,000). */
  windowMs?: number;
  /** Length of the per-day window in ms (default 86,400,000). */
  dayWindowMs?: number;
  /** Ban keys that retry before the 429's reset instant (default true). */
  ban?: boolean;
  /** Ban length in seconds (default 5 windows, rounded up). */
  banSeconds?: number;
  /** Tolerance for early retries before a ban, in ms (default 100). */
  banGraceMs?: number;
  /** Keep pets in this file (atomic writes), loaded at start. */
  dataFile?: string;
  /** First id handed out (default 1); never lowers the id stored in dataFile. */
  firstId?: bigint | number | string;
  /** Test hook: fixed delay before answering each request, in ms. */
  latencyMs?: number;
  /** Clock in epoch ms (default Date.now); tests may inject a fake one. */
  clock?: () => number;
  /** Largest accepted request body (default 64 KiB). */
  maxBodyBytes?: number;
  /** Keep the last N requests for requests() (default 10,000); false or 0 disables. */
  recordRequests?: boolean | number;
  /** Called after each response (e.g. for a request log). */
  onRequest?: (request: RecordedRequest) => void;
  /** Called when a write of dataFile fails (the create gets a 500 storage_failed). */
  onError?: (error: unknown) => void;
}

/** One request as the sandbox received and answered it. */
export interface RecordedRequest {
  /** 1, 2, 3... in arrival order. */
  seq: number;
  /** Arrival time, epoch ms (from the sandbox clock). */
  time: number;
  durationMs: number;
  method: string;
  /** Raw request target, e.g. "/v1/pets?limit=5". */
  url: string;
  /** Path without the query, e.g. "/v1/pets". */
  path: string;
  /** Query parameters (first value of each). */
  query: Record<string, string>;
  /** Request headers, lower-case names, repeated ones joined by ", " (authorization included). */
  headers: Record<string, string>;
  /** The recognised API key, if any. */
  key: string | undefined;
  /** Request body text ("" when none was read: only POST /pets bodies are read). */
  body: string;
  status: number;
  responseHeaders: Record<string, string>;
  responseBody: string;
  /** The Error body's code for error responses. */
  errorCode: string | undefined;
}

interface SandboxStats {
  /** Requests answered. */
  requests: number;
  byStatus: Record<number, number>;
  /** Pets created over HTTP. */
  created: number;
  count401: number;
  count429: number;
  /** 403 key_banned answers (including the one that starts a ban). */
  count403bans: number;
  /** Bans started. */
  bansIssued: number;
  /** Requests being handled right now. */
  inFlight: number;
  /** Appends to the data file that reached the disk (each a batch of creates), and writes that failed. */
  persistWrites: number;
  persistErrors: number;
}

interface SandboxLimits {
  plan: Plan;
  perMinute: number;
  perDay: number;
  windowMs: number;
  dayWindowMs: number;
  ban: boolean;
  banSeconds: number;
}

interface InjectedFailure {
  /** How many upcoming requests fail (default 1). */
  count?: number;
  /** HTTP status (default 503). */
  status?: number;
  /** Error code (default "injected_failure"). */
  code?: string;
  /** Retry-After seconds to send, if any. */
  retryAfter?: number;
}

export interface SandboxHandle {
  /** http://host:port */
  url: string;
  /** url + "/v1": what PETSTORE_BASE_URL should be. */
  baseUrl: string;
  host: string;
  port: number;
  keys: string[];
  /** True when the key was generated because none was given. */
  generatedKey: boolean;
  limits: SandboxLimits;
  dataFile: string | undefined;
  /** Pets loaded from dataFile at start. */
  loadedPets: number;
  /** Copies of the stored pets, ascending id, exact bigint ids. */
  pets(): Pet[];
  /** The recorded requests, oldest first. */
  requests(): RecordedRequest[];
  clearRequests(): void;
  stats(): SandboxStats;
  /** Forgets rate-limit counts, pending retries and bans. */
  resetRateLimits(): void;
  /** Stores pets directly (no HTTP, no limits); returns them with their ids. */
  seed(pets: ReadonlyArray<{ name: string; categoryId: bigint | number; status?: string }>): Pet[];
  /** Test hook: delay before each answer from now on, in ms. */
  setLatency(ms: number): void;
  /** Test hook: the next requests fail with an Error body (before auth and limits, not counted). */
  failNext(failure?: InjectedFailure): void;
  /** Writes dataFile now if anything changed. */
  flush(): Promise<void>;
  /** Stops accepting connections, finishes requests in flight, flushes dataFile. Idempotent. */
  close(): Promise<void>;
}

type Route =
  | { kind: 'listPets' }
  | { kind: 'createPet' }
  | { kind: 'getPet'; segment: string }
  | { kind: 'notImplemented'; what: string }
  | { kind: 'methodNotAllowed'; allow: string }
  | { kind: 'unknownPath' };

const LIST_PETS: Route = { kind: 'listPets' };
const CREATE_PET: Route = { kind: 'createPet' };

function resolveRoute(method: string, path: string): Route {
  if (path === '/v1/pets') {
    if (method === 'GET') return LIST_PETS;
    if (method === 'POST') return CREATE_PET;
    return { kind: 'methodNotAllowed', allow: 'GET, POST' };
  }
  if (path.startsWith('/v1/pets/')) {
    const segment = path.slice('/v1/pets/'.length);
    if (segment.length > 0 && !segment.includes('/')) {
      return method === 'GET' ? { kind: 'getPet', segment } : { kind: 'methodNotAllowed', allow: 'GET' };
    }
  }
  if (path === '/v1/store/orders' || path.startsWith('/v1/store/orders/')) return { kind: 'notImplemented', what: 'store orders (GET /store/orders)' };
  if (path === '/v1/categories' || path.startsWith('/v1/categories/')) return { kind: 'notImplemented', what: 'categories' };
  return { kind: 'unknownPath' };
}

/** Where the sandbox serves the interface's OpenAPI description (outside /v1: no key, no rate limit). */
export const OPENAPI_PATH = '/openapi.yaml';
let description: Buffer | undefined;

/** openapi/petstore.yaml of the package, found upward from this module (src/sandbox/ or a dist/ chunk). */
function readDescription(): Buffer {
  if (description) return description;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++, dir = dirname(dir)) {
    try {
      description = readFileSync(join(dir, 'openapi', 'petstore.yaml'));
      return description;
    } catch {
      // not here: one folder up
    }
  }
  throw new Error('openapi/petstore.yaml is not in the package');
}

function serveDescription(res: ServerResponse, head: boolean): void {
  let body: Buffer;
  try {
    body = readDescription();
  } catch (error) {
    const e = apiError('internal', (error as Error).message);
    res.writeHead(e.status, { 'content-type': 'application/json' }).end(e.body());
    return;
  }
  res.writeHead(200, { 'content-type': 'application/yaml; charset=utf-8', 'content-length': body.length });
  res.end(head ? undefined : body);
}

/** Generates an API key: "sk_sandbox_" and 24 random base64url characters. */
function generateKey(): string {
  return `sk_sandbox_${randomBytes(18).toString('base64url')}`;
}

const KEY_PATTERN = /^[\x21-\x7e]+$/;

function positiveInt(value: number | undefined, name: string, max = 1e12): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isSafeInteger(value) || value < 1 || value > max) throw new SandboxOptionError(`${name} must be a whole number from 1 to ${max}, got ${value}`);
  return value;
}

function positiveMs(value: number | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isFinite(value) || value <= 0) throw new SandboxOptionError(`${name} must be a positive number of milliseconds, got ${value}`);
  return value;
}

function toFirstId(value: bigint | number | string | undefined): bigint {
  if (value === undefined) return 1n;
  const id = typeof value === 'string' ? (/^\d+$/.test(value.trim()) ? toInt64(BigInt(value.trim())) : undefined) : toInt64(value);
  if (id === undefined || id < 1n) throw new SandboxOptionError(`firstId must be an integer from 1 to 9223372036854775807, got ${String(value)}`);
  return id;
}

function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

function flatHeaders(headers: IncomingMessage['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function queryRecord(search: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (search.length === 0) return out;
  for (const [k, v] of new URLSearchParams(search)) if (!(k in out)) out[k] = v;
  return out;
}

const JSON_TYPE = /^application\/(?:[\w.+-]*\+)?json$/;

/** The request's client went away before it could be answered: nothing is sent. */
class ClientGone extends Error {}

/**
 * One request as it is being answered: its parts, and the answer built up for it. A plain object of
 * fixed shape, filled synchronously where it can be (everything but reading a POST body and a create
 * waiting behind a rewrite of the data file): no promise or closure per step of a request.
 */
class Exchange implements RateHeaders {
  status = 200;
  body = '';
  errorCode: string | undefined = undefined;
  /** Close the connection after answering (a body too large to drain). */
  close = false;
  /** A create waiting for its line to be written to the data file. */
  stored: Reserved | undefined = undefined;
  /** The recognised API key, if any. */
  key: string | undefined = undefined;
  /** The request body text, when it was read. */
  requestBody = '';
  /** X-RateLimit-* of the answer, from the limiter's decision (rated) or, when it did not run, its peek. */
  rated = false;
  limit = 0;
  remaining = 0;
  reset = 0;
  /** Location of a created pet. */
  location: string | undefined = undefined;
  /** Other response headers (deprecation, an error's), lower-case names. */
  extra: Record<string, string> | undefined = undefined;
  /** Answered or let go: nothing more happens. */
  done = false;
  /** When the request is decided (rate limits, bans): its arrival, or the end of an injected latency. */
  now: number;
  // Reading the body.
  first: Buffer | undefined = undefined;
  chunks: Buffer[] | undefined = undefined;
  size = 0;
  tooLarge = false;

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    /** Arrival time, epoch ms (sandbox clock). */
    readonly time: number,
    /** performance.now() at arrival, when requests are recorded. */
    readonly started: number,
    readonly method: string,
    readonly url: string,
    readonly path: string,
    readonly search: string,
  ) {
    this.now = time;
  }

  addHeaders(headers: Record<string, string>): void {
    this.extra = this.extra === undefined ? { ...headers } : Object.assign(this.extra, headers);
  }
}

/** Rate-limit headers of requests without a recognised key: a window no request ever counts in. */
const ANONYMOUS_KEY = '\0anonymous';

function clip(text: string, max = 120): string {
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}

/** Starts a sandbox server; resolves once it is listening. */
export async function startSandbox(options: SandboxOptions = {}): Promise<SandboxHandle> {
  const plan = options.plan ?? 'free';
  if (!(PLANS as readonly string[]).includes(plan)) throw new SandboxOptionError(`plan must be one of ${PLANS.join(', ')}, got ${String(plan)}`);
  const windowMs = positiveMs(options.windowMs, 'windowMs') ?? 60_000;
  const dayWindowMs = positiveMs(options.dayWindowMs, 'dayWindowMs') ?? 86_400_000;
  const limits: SandboxLimits = {
    plan,
    perMinute: positiveInt(options.perMinute, 'perMinute') ?? PLAN_LIMITS[plan].perMinute,
    perDay: positiveInt(options.perDay, 'perDay') ?? PLAN_LIMITS[plan].perDay,
    windowMs,
    dayWindowMs,
    ban: options.ban ?? true,
    banSeconds: positiveInt(options.banSeconds, 'banSeconds') ?? Math.max(1, Math.ceil((5 * windowMs) / 1000)),
  };
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new SandboxOptionError(`port must be a whole number from 0 to 65535, got ${port}`);
  const host = options.host ?? '127.0.0.1';
  const givenKeys = [...new Set(options.keys ?? [])];
  for (const k of givenKeys) {
    if (!KEY_PATTERN.test(k)) throw new SandboxOptionError(`API key ${JSON.stringify(k)} must be non-empty printable ASCII without spaces`);
  }
  const generatedKey = givenKeys.length === 0;
  const keys = generatedKey ? [generateKey()] : givenKeys;
  const keySet = new Set(keys);
  const clock = options.clock ?? Date.now;
  const maxBody = positiveInt(options.maxBodyBytes, 'maxBodyBytes', 1024 ** 3) ?? DEFAULT_MAX_BODY_BYTES;
  // Bodies larger than maxBody are drained (up to 16x) and refused; beyond that the connection closes.
  const drainCap = Math.max(maxBody * 16, 1024 * 1024);
  const recordLimit =
    options.recordRequests === false
      ? 0
      : options.recordRequests === true || options.recordRequests === undefined
        ? DEFAULT_RECORD_LIMIT
        : Math.max(0, Math.floor(options.recordRequests));
  const recording = recordLimit > 0 || options.onRequest !== undefined;
  let latencyMs = Math.max(0, options.latencyMs ?? 0);
  let firstId = toFirstId(options.firstId);

  // State: pets (loaded from the data file when given), limits, records.
  const dataFile = options.dataFile;
  const data = dataFile === undefined ? undefined : await loadData(dataFile);
  if (data && data.nextId > firstId) firstId = data.nextId;
  const store = new PetStore(firstId, data?.pets ?? []);
  let log: DataLog | undefined;
  let lastStorageError: unknown;
  if (dataFile !== undefined) {
    try {
      log = await DataLog.open(dataFile, { text: () => store.snapshot(), pets: () => store.size }, { onError: (error) => options.onError?.(error) });
    } catch (error) {
      throw new SandboxStartError(`cannot write --data file ${dataFile}: ${(error as Error).message}`, { cause: error });
    }
  }

  const limiter = new QuotaKeeper({
    perWindow: limits.perMinute,
    windowMs,
    perDay: limits.perDay,
    dayWindowMs,
    ban: limits.ban,
    banMs: limits.banSeconds * 1000,
    banGraceMs: Math.max(0, options.banGraceMs ?? DEFAULT_BAN_GRACE_MS),
  });

  let records: RecordedRequest[] = [];
  let seq = 0;
  // The data file's counters are read when stats() is asked, not kept here.
  const stats: Omit<SandboxStats, 'byStatus' | 'persistWrites' | 'persistErrors'> = {
    requests: 0,
    created: 0,
    count401: 0,
    count429: 0,
    count403bans: 0,
    bansIssued: 0,
    inFlight: 0,
  };
  // Answers by status: an array indexed by the status (an object keyed by it was a slow store on every answer).
  const statusCounts: number[] = new Array(1000).fill(0);
  const failures: Required<InjectedFailure>[] = [];
  let closing = false;
  let closePromise: Promise<void> | undefined;

  function takeFailure(): ApiError {
    const f = failures[0] as Required<InjectedFailure>;
    if (--f.count <= 0) failures.shift();
    const headers: Record<string, string> = f.retryAfter > 0 ? { 'retry-after': String(f.retryAfter) } : {};
    return new ApiError(f.status, f.code, `injected failure (test hook): HTTP ${f.status}`, headers);
  }

  // "Bearer <key>" exactly, the form every client sends, found without the regular expression.
  const bearerKeys = new Map(keys.map((k) => [`Bearer ${k}`, k]));

  /** Starts reading a POST body; the create goes on in `received` once it is all there. */
  function createPet(ex: Exchange): void {
    const req = ex.req;
    expectNoQuery(ex.search);
    const headers = req.headers;
    const contentType = headers['content-type'];
    if (contentType !== undefined && contentType !== 'application/json' && contentType.trim() !== '') {
      const mediaType = (contentType.split(';')[0] ?? '').trim().toLowerCase();
      if (!JSON_TYPE.test(mediaType)) {
        throw apiError('unsupported_media_type', `Content-Type must be application/json, got ${JSON.stringify(clip(mediaType, 60))}`);
      }
    }
    // The client may have gone while the request waited (latency): its 'close' has already fired.
    if (req.destroyed) throw new ClientGone();
    const declared = Number(headers['content-length']);
    if (declared > drainCap) tooLarge(ex, true);
    if (declared > maxBody) ex.tooLarge = true;
    req.on('data', (chunk: Buffer) => {
      if (ex.done) return;
      ex.size += chunk.length;
      if (ex.size > maxBody) {
        ex.tooLarge = true;
        ex.first = undefined;
        ex.chunks = undefined;
        if (ex.size > drainCap) {
          req.pause();
          settle(ex, tooLargeToDrain);
        }
      } else if (!ex.tooLarge) {
        if (ex.first === undefined) ex.first = chunk;
        else (ex.chunks ??= [ex.first]).push(chunk);
      }
    });
    req.on('end', () => {
      if (ex.done) return;
      settle(ex, ex.tooLarge ? tooLargeDrained : received);
    });
    req.on('close', () => {
      if (!ex.done && !req.complete) letGo(ex);
    });
  }

  function tooLarge(ex: Exchange, close: boolean): never {
    ex.close = close;
    throw apiError('payload_too_large', `request body is larger than ${maxBody} bytes`);
  }
  const tooLargeToDrain = (ex: Exchange) => tooLarge(ex, true);
  const tooLargeDrained = (ex: Exchange) => tooLarge(ex, false);

  /**
   * A whole POST body: validated and given an id. Returns false: the answer follows at the end of this
   * turn of the event loop, with a data file once the create's line is written (logged()).
   */
  function received(ex: Exchange): boolean {
    const bytes = ex.chunks ? Buffer.concat(ex.chunks, ex.size) : (ex.first ?? Buffer.alloc(0));
    const text = bodyText(bytes);
    ex.requestBody = text;
    const stored = store.reserve(readNewPetText(text) ?? petText(validateNewPet(parseBody(text))));
    ex.stored = stored;
    // Answered at the end of this turn, with its others (with a data file, once their lines are written).
    if (log) log.add(`${stored.json}\n`, ex, logged);
    else answerAtEndOfTurn.add(ex);
    return false;
  }

  /** The line of a create is in the data file, or could not be written. */
  function logged(ex: Exchange, error: Error | undefined): void {
    if (error === undefined) settle(ex, createStored);
    else settle(ex, () => storageFailed(error));
  }

  function createStored(ex: Exchange): void {
    created(ex, ex.stored as Reserved);
  }

  const answerAtEndOfTurn = new EndOfTurn((ex: Exchange) => settle(ex, createStored));

  function storageFailed(error: unknown): never {
    // The creates of one batch share its error: one log line for them.
    if (error !== lastStorageError) options.onError?.(error);
    lastStorageError = error;
    throw apiError('storage_failed', `the pet was not stored (${(error as Error).message}); nothing was created`);
  }

  function created(ex: Exchange, stored: Reserved): void {
    store.insert(stored);
    stats.created++;
    ex.status = 201;
    ex.location = `/v1/pets/${stored.idText}`;
    ex.body = stored.json;
  }

  /**
   * Answers `ex` from what is in it; throws an ApiError for an error answer. Returns false when the
   * answer comes later (a POST whose body is still being read).
   */
  function dispatch(ex: Exchange): boolean {
    if (failures.length > 0) throw takeFailure();

    const { method, path, req } = ex;
    const route = resolveRoute(method, path);
    if (route.kind === 'getPet') ex.addHeaders({ deprecation: 'true', sunset: GET_PET_SUNSET_HEADER });

    // Authentication. Unknown paths and methods are answered without a key.
    const auth = req.headers.authorization;
    let key = auth === undefined ? undefined : bearerKeys.get(auth);
    let token: string | undefined = key;
    if (key === undefined && auth !== undefined) {
      token = /^\s*bearer\s+(\S+)\s*$/i.exec(auth)?.[1];
      if (token !== undefined && keySet.has(token)) key = token;
    }
    ex.key = key;
    if (key === undefined) {
      if (route.kind === 'unknownPath' || route.kind === 'methodNotAllowed') return routeError(route, method, path);
      if (auth === undefined || auth.trim() === '') {
        throw apiError('unauthorized', 'missing API key: send it as "Authorization: Bearer <key>"', { 'www-authenticate': 'Bearer realm="petstore"' });
      }
      if (token === undefined) {
        throw apiError('unauthorized', 'the Authorization header must use the Bearer scheme: "Authorization: Bearer <key>"', {
          'www-authenticate': 'Bearer realm="petstore"',
        });
      }
      throw apiError('unauthorized', 'invalid API key: it is not one of the keys this sandbox accepts', {
        'www-authenticate': 'Bearer realm="petstore", error="invalid_token"',
      });
    }

    // Rate limits and bans (per key; every allowed request counts, whatever its outcome).
    const now = ex.now;
    ex.rated = true;
    if (!limiter.admit(key, now, ex)) refused(ex, key, now);
    return answer(ex, route);
  }

  /** A request the limiter does not simply allow: its decision, as an error answer when it is one. */
  function refused(ex: Exchange, key: string, now: number): void {
    const decision = limiter.check(key, now);
    ex.limit = decision.headers.limit;
    ex.remaining = decision.headers.remaining;
    ex.reset = decision.headers.reset;
    if (decision.kind === 'banned') {
      stats.count403bans++;
      if (decision.newBan) stats.bansIssued++;
      const message = decision.newBan
        ? `API key banned for ${limits.banSeconds}s: it sent a request before the reset time its 429 announced; retry after ${decision.retryAfter}s`
        : `API key is banned for retrying too early after a 429; retry after ${decision.retryAfter}s (requests during the ban do not extend it)`;
      throw apiError('key_banned', message, { 'retry-after': String(decision.retryAfter) });
    }
    if (decision.kind === 'limited') {
      stats.count429++;
      const what = decision.which === 'day' ? `${limits.perDay} requests per day` : `${limits.perMinute} requests per ${formatDuration(windowMs)}`;
      throw apiError('rate_limited', `rate limit of ${what} exceeded; retry after ${decision.retryAfter}s`, {
        'retry-after': String(decision.retryAfter),
      });
    }
  }

  function answer(ex: Exchange, route: Route): boolean {
    const { method, path, search } = ex;
    switch (route.kind) {
      case 'listPets': {
        const query = parseListQuery(search);
        ex.body = store.listJson(query.limit, query.status);
        return true;
      }
      case 'createPet':
        createPet(ex);
        return false;
      case 'getPet': {
        const id = parsePetId(route.segment);
        expectNoQuery(search);
        const json = store.getJson(id);
        if (json === undefined) throw apiError('not_found', `pet ${id} not found`);
        ex.body = json;
        return true;
      }
      case 'notImplemented':
        throw apiError('not_implemented', `${route.what} is only named by the interface document; the sandbox does not implement it`);
      default:
        return routeError(route, method, path);
    }
  }

  function routeError(route: Route, method: string, path: string): never {
    if (route.kind === 'methodNotAllowed') {
      throw apiError('method_not_allowed', `method ${method} is not allowed on ${clip(path)}; allowed: ${route.allow}`, { allow: route.allow });
    }
    throw apiError('unknown_path', `no such path: ${clip(path)} (the sandbox serves GET /v1/pets, POST /v1/pets and GET /v1/pets/{petId})`);
  }

  /** Runs one step of answering `ex`: answers when the step says so, or with the error it throws. */
  function settle(ex: Exchange, step: (ex: Exchange) => boolean | undefined | void): void {
    let answer: boolean;
    try {
      answer = step(ex) !== false;
    } catch (error) {
      if (error instanceof ClientGone) {
        letGo(ex);
        return;
      }
      const e = error instanceof ApiError ? error : apiError('internal', `internal sandbox error: ${(error as Error)?.message ?? String(error)}`);
      ex.status = e.status;
      ex.body = e.body();
      ex.errorCode = e.code;
      ex.location = undefined;
      ex.addHeaders(e.headers);
      answer = true;
    }
    if (answer) respond(ex);
  }

  function letGo(ex: Exchange): void {
    if (ex.done) return;
    ex.done = true;
    stats.inFlight--;
  }

  const createdHeaders: Array<string | number> = [
    'x-ratelimit-limit',
    '',
    'x-ratelimit-remaining',
    0,
    'x-ratelimit-reset',
    '',
    'content-type',
    'application/json',
    'content-length',
    0,
    'location',
    '',
  ];
  const limitOf = limits.perMinute;
  const limitText = String(limitOf);
  let resetOf = Number.NaN;
  let resetText = '';

  function respond(ex: Exchange): void {
    if (ex.done) return;
    ex.done = true;
    const res = ex.res;
    try {
      if (res.destroyed) return;
      // The rate-limit headers are on every API response (interface document): answers given before the
      // limiter ran (a 401, a failure injected by a test) carry the key's window as it stands, uncounted
      // (for no recognised key, a fresh window of the plan).
      const rate: RateHeaders = ex.rated ? ex : limiter.peek(ex.key ?? ANONYMOUS_KEY, clock());
      const length = Buffer.byteLength(ex.body);
      let headers: Array<string | number>;
      if (ex.location !== undefined && ex.extra === undefined && !ex.close && !closing) {
        // A create's answer, the usual one: the one list, filled in (node:http reads it in writeHead and
        // keeps nothing of it), with the texts of the limit and the reset made once, not on every answer.
        headers = createdHeaders;
        headers[1] = rate.limit === limitOf ? limitText : String(rate.limit);
        // Texts, not numbers: node:http would convert a number twice (to check it, then to write it).
        headers[3] = String(rate.remaining);
        if (rate.reset !== resetOf) {
          resetOf = rate.reset;
          resetText = String(resetOf);
        }
        headers[5] = resetText;
        headers[9] = String(length);
        headers[11] = ex.location;
      } else {
        headers = [
          'x-ratelimit-limit',
          rate.limit,
          'x-ratelimit-remaining',
          rate.remaining,
          'x-ratelimit-reset',
          rate.reset,
          'content-type',
          'application/json',
          'content-length',
          length,
        ];
        if (ex.location !== undefined) headers.push('location', ex.location);
        const extra = ex.extra;
        if (extra !== undefined) for (const name in extra) headers.push(name, extra[name] as string);
        if (ex.close || closing) headers.push('connection', 'close');
      }
      res.writeHead(ex.status, headers);
      res.end(ex.body);

      stats.requests++;
      statusCounts[ex.status] = (statusCounts[ex.status] as number) + 1;
      if (ex.status === 401) stats.count401++;
      if (recording) record(ex, headers);
    } catch {
      res.destroy();
    } finally {
      stats.inFlight--;
    }
  }

  function record(ex: Exchange, headers: ReadonlyArray<string | number>): void {
    const responseHeaders: Record<string, string> = {};
    for (let i = 0; i < headers.length; i += 2) responseHeaders[headers[i] as string] = String(headers[i + 1]);
    const entry: RecordedRequest = {
      seq: ++seq,
      time: ex.time,
      durationMs: performance.now() - ex.started,
      method: ex.method,
      url: ex.url,
      path: ex.path,
      query: queryRecord(ex.search),
      headers: flatHeaders(ex.req.headers),
      key: ex.key,
      body: ex.requestBody,
      status: ex.status,
      responseHeaders,
      responseBody: ex.body,
      errorCode: ex.errorCode,
    };
    if (recordLimit > 0) {
      records.push(entry);
      if (records.length > recordLimit * 2) records = records.slice(-recordLimit);
    }
    options.onRequest?.(entry);
  }

  function handle(req: IncomingMessage, res: ServerResponse): void {
    if (req.url === OPENAPI_PATH && (req.method === 'GET' || req.method === 'HEAD')) {
      serveDescription(res, req.method === 'HEAD');
      return;
    }
    stats.inFlight++;
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const ex = new Exchange(
      req,
      res,
      clock(),
      recording ? performance.now() : 0,
      req.method ?? 'GET',
      url,
      q === -1 ? url : url.slice(0, q),
      q === -1 ? '' : url.slice(q + 1),
    );
    if (latencyMs > 0) setTimeout(settle, latencyMs, ex, dispatchLate);
    else settle(ex, dispatch);
  }

  /** A request held back by the latency hook is decided when it is let through. */
  function dispatchLate(ex: Exchange): boolean {
    ex.now = clock();
    return dispatch(ex);
  }

  const server: Server = createServer(handle);
  server.keepAliveTimeout = 10_000;

  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      server.off('listening', onListening);
      const where = `${host}:${port}`;
      if (error.code === 'EADDRINUSE')
        reject(new SandboxStartError(`port ${port} on ${host} is already in use; pass --port 0 to pick a free port`, { cause: error }));
      else if (error.code === 'EACCES') reject(new SandboxStartError(`not allowed to listen on ${where}; choose a port above 1023`, { cause: error }));
      else reject(new SandboxStartError(`cannot listen on ${where}: ${error.message}`, { cause: error }));
    };
    const onListening = () => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, host);
  });

  const address = server.address() as AddressInfo;
  const url = `http://${urlHost(host)}:${address.port}`;

  const sandbox: SandboxHandle = {
    url,
    baseUrl: `${url}/v1`,
    host,
    port: address.port,
    keys,
    generatedKey,
    limits,
    dataFile,
    loadedPets: data?.pets.length ?? 0,
    pets: () => store.all(),
    requests: () => (records.length > recordLimit ? records.slice(-recordLimit) : records.slice()),
    clearRequests: () => {
      records = [];
    },
    stats: () => ({
      ...stats,
      byStatus: Object.fromEntries(statusCounts.flatMap((n, status) => (n > 0 ? [[status, n]] : []))),
      persistWrites: log?.writes ?? 0,
      persistErrors: log?.errors ?? 0,
    }),
    resetRateLimits: () => limiter.reset(),
    seed: (pets) => {
      const inputs = pets.map((p, i) => {
        const categoryId = toInt64(p.categoryId);
        if (typeof p.name !== 'string' || categoryId === undefined || (p.status !== undefined && !isPetStatus(p.status))) {
          throw new SandboxOptionError(`seed: pet ${i} is not a valid NewPet`);
        }
        const input: NewPet = { name: p.name, categoryId };
        if (p.status !== undefined) input.status = p.status as NewPet['status'];
        return input;
      });
      const created = inputs.map((input) => {
        const stored = store.create(input);
        const pet: Pet = { id: BigInt(stored.id), name: input.name, categoryId: input.categoryId };
        if (input.status !== undefined) pet.status = input.status;
        log?.append(`${stored.json}\n`).catch((error: unknown) => options.onError?.(error));
        return pet;
      });
      return created.map((p) => ({ ...p }));
    },
    setLatency: (ms) => {
      latencyMs = Math.max(0, ms);
    },
    failNext: (failure = {}) => {
      failures.push({
        count: failure.count ?? 1,
        status: failure.status ?? 503,
        code: failure.code ?? 'injected_failure',
        retryAfter: failure.retryAfter ?? 0,
      });
    },
    flush: async () => {
      await log?.idle();
    },
    close: () => {
      if (closePromise) return closePromise;
      closing = true;
      closePromise = (async () => {
        await new Promise<void>((resolve) => {
          const force = setTimeout(() => server.closeAllConnections(), 10_000);
          force.unref();
          server.close(() => {
            clearTimeout(force);
            resolve();
          });
          server.closeIdleConnections();
        });
        await log?.close();
      })();
      return closePromise;
    },
  };
  return sandbox;
}

/** "60s", "3s", "500ms", "1.5s", "2m", "24h" */
export function formatDuration(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0 && ms > 60_000) return `${ms / 60_000}m`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  if (ms < 1000) return `${ms}ms`;
  return `${ms / 1000}s`;
}
