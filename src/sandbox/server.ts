// The sandbox: the pet store interface with its auth, errors, rate limits and ban, for trying the CLI and for tests.

import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { stringifyJson } from '../json/int64.js';
import type { Pet } from '../pets/pet.js';
import { type Answer, bearerKey, DEPRECATED, type InjectedFailure, refusal, resolveRoute, type Route, routeError, unauthorized } from './api.js';
import { DataLog } from './data-log.js';
import { ApiError, apiError, SandboxStartError } from './errors.js';
import { type Limits, resolveLimits, type StartOptions } from './options.js';
import { QuotaKeeper, type RateHeaders } from './rate-limit.js';
import { loadData, PetStore } from './store.js';
import { checkContentType, ClientGone, expectNoQuery, parseBody, parseListQuery, parsePetId, readBody, validateNewPet } from './validate.js';

export type SandboxHandle = Sandbox;

/** Where the interface's OpenAPI description is served, outside /v1 (no key, no rate limit). */
export const OPENAPI_PATH = '/openapi.yaml';

/** openapi/petstore.yaml: an asset of the single executable (scripts/package.mjs), else found upward from this module (src/sandbox/ or dist/). */
function serveDescription(res: ServerResponse, head: boolean): void {
  const sea = process.getBuiltinModule('node:sea');
  const url = ['./', '../', '../../', '../../../'].map((up) => new URL(`${up}openapi/petstore.yaml`, import.meta.url)).find((u) => existsSync(u));
  const body = sea.isSea() ? Buffer.from(sea.getAsset('openapi/petstore.yaml')) : url && readFileSync(url);
  if (body === undefined) {
    const e = apiError('internal', 'openapi/petstore.yaml is not in the package');
    res.writeHead(e.status, { 'content-type': 'application/json' }).end(e.body());
    return;
  }
  res.writeHead(200, { 'content-type': 'application/yaml; charset=utf-8', 'content-length': body.length }).end(head ? undefined : body);
}

/** The host as a URL writes it; an "any address" one as the loopback address that reaches it. */
function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

export async function startSandbox(options: SandboxOptions = {}): Promise<SandboxHandle> {
  const { dataFile, host = '127.0.0.1', port = 0, onError = () => {} } = options;
  const firstId = BigInt(options.firstId ?? 1);
  const data = dataFile === undefined ? undefined : await loadData(dataFile);
  const store = new PetStore(data && data.nextId > firstId ? data.nextId : firstId, data?.pets ?? []);
  let log: DataLog | undefined;
  try {
    if (dataFile !== undefined) log = new DataLog(dataFile, store.snapshot(), onError);
  } catch (error) {
    throw new SandboxStartError(`cannot write --data file ${dataFile}: ${(error as Error).message}`, { cause: error });
  }
  const server = createServer();
  server.keepAliveTimeout = 10_000;
  server.listen(port, host);
  try {
    await once(server, 'listening');
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    if (code === 'EADDRINUSE') throw new SandboxStartError(`port ${port} on ${host} is already in use; pass --port 0 to pick a free port`, { cause: error });
    if (code === 'EACCES') throw new SandboxStartError(`not allowed to listen on ${host}:${port}; choose a port above 1023`, { cause: error });
    throw new SandboxStartError(`cannot listen on ${host}:${port}: ${message}`, { cause: error });
  }
  return new Sandbox(host, options, server, store, log, data?.pets.length ?? 0);
}

/** A request being answered; `now` decides it (its arrival, or the end of an injected latency). */
interface Exchange {
  req: IncomingMessage;
  started: number;
  time: number;
  now: number;
  path: string;
  search: string;
  key?: string;
  body: string;
  /** The limiter's decision, when it ran. */
  rate?: RateHeaders;
}

/** One request as the sandbox received and answered it: header names in lower case (repeated ones joined by
 * ", "), the first value of each query parameter, body "" unless a POST /pets body was read. */
function recordOf(seq: number, ex: Exchange, answer: Answer, responseHeaders: Record<string, string>) {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(ex.req.headers)) if (value !== undefined) headers[name] = [value].flat().join(', ');
  const query: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(ex.search)) query[name] ??= value;
  return {
    seq,
    time: ex.time,
    durationMs: performance.now() - ex.started,
    method: ex.req.method ?? 'GET',
    url: ex.req.url ?? '/',
    path: ex.path,
    query,
    headers,
    key: ex.key,
    body: ex.body,
    status: answer.status,
    responseHeaders,
    responseBody: answer.body,
    errorCode: answer.errorCode,
  };
}

/** The recorded requests (requests(), onRequest): seq counts from 1 in arrival order, time is the arrival (sandbox clock). */
export type RecordedRequest = ReturnType<typeof recordOf>;

export interface SandboxOptions extends StartOptions {
  /** Called after each answer (--log). */
  onRequest?: (request: RecordedRequest) => void;
}

/** A running sandbox: where it listens, how it answers, what it stored and received, test hooks, and close(). */
class Sandbox {
  /** http://host:port, and with "/v1": what PETSTORE_BASE_URL should be. */
  readonly url: string;
  readonly baseUrl: string;
  readonly port: number;
  readonly keys: string[];
  readonly generatedKey: boolean;
  readonly limits: Limits;
  readonly dataFile: string | undefined;
  readonly #limiter: QuotaKeeper;
  readonly #clock: () => number;
  readonly #failures: Required<InjectedFailure>[] = [];
  readonly #recordLimit: number;
  readonly #records: RecordedRequest[] = [];
  readonly #stats = { requests: 0, byStatus: {} as Record<number, number>, created: 0, count429: 0, count403bans: 0, bansIssued: 0, inFlight: 0 };
  #latencyMs: number;
  #closing: Promise<void> | undefined;

  constructor(
    readonly host: string,
    private readonly options: SandboxOptions,
    private readonly server: Server,
    private readonly store: PetStore,
    private readonly log: DataLog | undefined,
    readonly loadedPets: number,
  ) {
    const keys = [...new Set(options.keys)];
    this.generatedKey = keys.length === 0;
    this.keys = this.generatedKey ? [`sk_sandbox_${randomBytes(18).toString('base64url')}`] : keys;
    this.port = (server.address() as AddressInfo).port;
    this.url = `http://${urlHost(host)}:${this.port}`;
    this.baseUrl = `${this.url}/v1`;
    this.limits = resolveLimits(options);
    this.dataFile = options.dataFile;
    this.#clock = options.clock ?? Date.now;
    this.#latencyMs = Math.max(0, options.latencyMs ?? 0);
    this.#limiter = new QuotaKeeper(this.limits);
    const record = options.recordRequests ?? true;
    this.#recordLimit = record === true ? 10_000 : record === false ? 0 : record;
    server.on('request', (req: IncomingMessage, res: ServerResponse) => void this.#handle(req, res));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.url === OPENAPI_PATH && (req.method === 'GET' || req.method === 'HEAD')) return serveDescription(res, req.method === 'HEAD');
    this.#stats.inFlight++;
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const time = this.#clock();
    const ex: Exchange = {
      req,
      started: performance.now(),
      time,
      now: time,
      path: q === -1 ? url : url.slice(0, q),
      search: q === -1 ? '' : url.slice(q + 1),
      body: '',
    };
    try {
      if (this.#latencyMs > 0) {
        await sleep(this.#latencyMs);
        ex.now = this.#clock();
      }
      const route = resolveRoute(req.method ?? 'GET', ex.path);
      const answer = await this.#operate(ex, route).catch((error: unknown): Answer => {
        if (error instanceof ClientGone) throw error;
        const e = error instanceof ApiError ? error : apiError('internal', `internal sandbox error: ${(error as Error)?.message ?? String(error)}`);
        return { status: e.status, body: e.body(), headers: e.headers, errorCode: e.code };
      });
      if (route.kind === 'getPet') answer.headers = { ...DEPRECATED, ...answer.headers };
      this.#send(ex, res, answer);
    } catch {
      // The client left (ClientGone), or the answer could not be written.
      res.destroy();
    } finally {
      this.#stats.inFlight--;
    }
  }

  async #operate(ex: Exchange, route: Route): Promise<Answer> {
    const failure = this.#failures[0];
    if (failure !== undefined) {
      if (--failure.count <= 0) this.#failures.shift();
      const headers: Record<string, string> = failure.retryAfter > 0 ? { 'retry-after': String(failure.retryAfter) } : {};
      throw new ApiError(failure.status, failure.code, `injected failure (test hook): HTTP ${failure.status}`, headers);
    }
    const { authorization } = ex.req.headers;
    ex.key = bearerKey(authorization, this.keys);
    if (ex.key === undefined) {
      if (route.kind === 'unknownPath' || route.kind === 'methodNotAllowed') throw routeError(route, ex.req.method ?? 'GET', ex.path);
      throw unauthorized(authorization);
    }
    // Every allowed request counts, whatever its outcome.
    const decision = this.#limiter.check(ex.key, ex.now);
    ex.rate = decision.headers;
    if (decision.kind === 'limited') this.#stats.count429++;
    if (decision.kind === 'banned') {
      this.#stats.count403bans++;
      if (decision.newBan) this.#stats.bansIssued++;
    }
    if (decision.kind !== 'allow') throw refusal(decision, this.limits);
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
        throw routeError(route, ex.req.method ?? 'GET', ex.path);
    }
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
      this.options.onError?.(error);
      throw apiError('storage_failed', `the pet was not stored (${(error as Error).message}); nothing was created`);
    }
    this.store.add(pet);
    this.#stats.created++;
    return { status: 201, body: json, headers: { location: `/v1/pets/${pet.id}` } };
  }

  /** Sends an answer with the headers every API response carries, and records it. */
  #send(ex: Exchange, res: ServerResponse, answer: Answer): void {
    if (res.destroyed) return;
    // An answer given before the limiter ran carries the key's window uncounted; with no recognised key,
    // a fresh window of the plan.
    const rate = ex.rate ?? this.#limiter.peek(ex.key ?? '\0anonymous', this.#clock());
    const headers: Record<string, string> = {
      'x-ratelimit-limit': String(rate.limit),
      'x-ratelimit-remaining': String(rate.remaining),
      'x-ratelimit-reset': String(rate.reset),
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(answer.body)),
      ...answer.headers,
    };
    if (this.#closing) headers.connection = 'close';
    res.writeHead(answer.status, headers).end(answer.body);
    this.#stats.requests++;
    this.#stats.byStatus[answer.status] = (this.#stats.byStatus[answer.status] ?? 0) + 1;
    if (this.#recordLimit <= 0 && !this.options.onRequest) return;
    const entry = recordOf(this.#stats.requests, ex, answer, headers);
    this.#records.push(entry);
    if (this.#records.length > this.#recordLimit) this.#records.shift();
    this.options.onRequest?.(entry);
  }

  /** Copies of the stored pets, ascending id, exact bigint ids. */
  readonly pets = (): Pet[] => this.store.list(Number.POSITIVE_INFINITY).map((pet) => ({ ...pet }));
  /** The recorded requests, oldest first. */
  readonly requests = (): RecordedRequest[] => [...this.#records];
  readonly clearRequests = (): void => {
    this.#records.length = 0;
  };
  /** Counts of requests and answers, and of writes to the data file that reached the disk or failed. */
  readonly stats = () => ({
    ...this.#stats,
    byStatus: { ...this.#stats.byStatus },
    persistWrites: this.log?.writes ?? 0,
    persistErrors: this.log?.errors ?? 0,
  });
  /** Forgets rate-limit counts, pending retries and bans. */
  readonly resetRateLimits = (): void => this.#limiter.reset();
  /** Test hook: delay before each answer from now on, in ms. */
  readonly setLatency = (ms: number): void => {
    this.#latencyMs = Math.max(0, ms);
  };
  /** Test hook: the next requests fail with an Error body (before auth and limits, not counted). */
  readonly failNext = ({ count = 1, status = 503, code = 'injected_failure', retryAfter = 0 }: InjectedFailure = {}): void => {
    this.#failures.push({ count, status, code, retryAfter });
  };
  /** Syncs the data file to disk (every create is written before its 201). */
  readonly flush = async (): Promise<void> => this.log?.sync();

  /** Stores pets directly (no HTTP, no limits) and returns them with their ids; a failed write of the data file is logged. */
  readonly seed = (pets: ReadonlyArray<{ name: string; categoryId: bigint | number; status?: string }>): Pet[] => {
    const inputs = pets.map((p, i) => {
      try {
        return validateNewPet(p);
      } catch (error) {
        throw new Error(`seed: pet ${i} is not a valid NewPet: ${(error as Error).message}`);
      }
    });
    return inputs.map((input) => {
      const pet: Pet = { id: this.store.takeId(), ...input };
      this.store.add(pet);
      try {
        this.log?.append(`${stringifyJson(pet)}\n`);
      } catch (error) {
        this.options.onError?.(error);
      }
      return { ...pet };
    });
  };

  /** Stops accepting connections, finishes requests in flight, closes dataFile. Idempotent. */
  readonly close = (): Promise<void> => {
    this.#closing ??= new Promise<void>((resolve) => {
      const force = setTimeout(() => this.server.closeAllConnections(), 10_000).unref();
      this.server.close(() => {
        clearTimeout(force);
        resolve();
      });
      this.server.closeIdleConnections();
    }).then(() => this.log?.close());
    return this.#closing;
  };
}
