// The sandbox: a local, in-process implementation of the pet store interface (GET/POST /v1/pets,
// GET /v1/pets/{petId}), for trying the CLI and for tests. This module listens, sends the answers and
// shuts down; api.ts makes them.

import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { Pet } from '../pets/pet.js';
import { type Answer, type InjectedFailure, PetsApi } from './api.js';
import { DataLog } from './data-log.js';
import { apiError, SandboxStartError } from './errors.js';
import { resolveSettings, type SandboxOptions, type Settings } from './options.js';
import { loadData } from './persist.js';
import { QuotaKeeper } from './rate-limit.js';
import { Exchange, type RecordedRequest, Recorder } from './recorder.js';
import { PetStore } from './store.js';

export type { RecordedRequest } from './recorder.js';
export type { SandboxOptions } from './options.js';
export type SandboxHandle = Sandbox;

/** Where the interface's OpenAPI description is served, outside /v1 (no key, no rate limit). */
export const OPENAPI_PATH = '/openapi.yaml';

async function listen(server: Server, host: string, port: number): Promise<void> {
  server.listen(port, host);
  try {
    await once(server, 'listening');
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    if (code === 'EADDRINUSE') throw new SandboxStartError(`port ${port} on ${host} is already in use; pass --port 0 to pick a free port`, { cause: error });
    if (code === 'EACCES') throw new SandboxStartError(`not allowed to listen on ${host}:${port}; choose a port above 1023`, { cause: error });
    throw new SandboxStartError(`cannot listen on ${host}:${port}: ${message}`, { cause: error });
  }
}

/** The host as a URL writes it; an "any address" one as the loopback address that reaches it. */
function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

/** Serves openapi/petstore.yaml of the package, found upward from this module (src/sandbox/ or a dist/ chunk). */
function serveDescription(res: ServerResponse, head: boolean): void {
  for (let dir = dirname(fileURLToPath(import.meta.url)), i = 0; i < 5; i++, dir = dirname(dir)) {
    let body: Buffer;
    try {
      body = readFileSync(join(dir, 'openapi', 'petstore.yaml'));
    } catch {
      continue;
    }
    res.writeHead(200, { 'content-type': 'application/yaml; charset=utf-8', 'content-length': body.length }).end(head ? undefined : body);
    return;
  }
  const e = apiError('internal', 'openapi/petstore.yaml is not in the package');
  res.writeHead(e.status, { 'content-type': 'application/json' }).end(e.body());
}

/** Starts a sandbox server; resolves once it is listening. */
export async function startSandbox(options: SandboxOptions = {}): Promise<SandboxHandle> {
  const settings = resolveSettings(options);
  const { dataFile, onError = () => {} } = options;
  const data = dataFile === undefined ? undefined : await loadData(dataFile);
  const store = new PetStore(data && data.nextId > settings.firstId ? data.nextId : settings.firstId, data?.pets ?? []);
  let log: DataLog | undefined;
  try {
    if (dataFile !== undefined) log = new DataLog(dataFile, () => store.snapshot(), onError);
  } catch (error) {
    throw new SandboxStartError(`cannot write --data file ${dataFile}: ${(error as Error).message}`, { cause: error });
  }
  const server = createServer();
  server.keepAliveTimeout = 10_000;
  await listen(server, settings.host, settings.port);
  return new Sandbox(settings, options, server, store, log, data?.pets.length ?? 0);
}

/** A running sandbox: where it listens, what it stored and received, test hooks, and close(). */
class Sandbox {
  /** http://host:port, and with "/v1": what PETSTORE_BASE_URL should be. */
  readonly url: string;
  readonly baseUrl: string;
  readonly host: string;
  readonly port: number;
  readonly keys: string[];
  /** True when the key was generated because none was given. */
  readonly generatedKey: boolean;
  readonly limits: Settings['limits'];
  readonly dataFile: string | undefined;
  readonly #limiter: QuotaKeeper;
  readonly #recorder: Recorder;
  readonly #api: PetsApi;
  readonly #clock: () => number;
  #latencyMs: number;
  #closing: Promise<void> | undefined;

  constructor(
    settings: Settings,
    options: SandboxOptions,
    private readonly server: Server,
    private readonly store: PetStore,
    private readonly log: DataLog | undefined,
    /** Pets loaded from dataFile at start. */
    readonly loadedPets: number,
  ) {
    const { limits } = settings;
    this.host = settings.host;
    this.port = (server.address() as AddressInfo).port;
    this.url = `http://${urlHost(this.host)}:${this.port}`;
    this.baseUrl = `${this.url}/v1`;
    this.keys = settings.keys;
    this.generatedKey = settings.generatedKey;
    this.limits = limits;
    this.dataFile = options.dataFile;
    this.#clock = options.clock ?? Date.now;
    this.#latencyMs = Math.max(0, options.latencyMs ?? 0);
    this.#limiter = new QuotaKeeper({
      perWindow: limits.perMinute,
      windowMs: limits.windowMs,
      perDay: limits.perDay,
      dayWindowMs: limits.dayWindowMs,
      ban: limits.ban,
      banMs: limits.banSeconds * 1000,
      banGraceMs: settings.banGraceMs,
    });
    this.#recorder = new Recorder(settings.recordLimit, options.onRequest);
    this.#api = new PetsApi(settings, store, log, this.#limiter, this.#recorder.stats, options.onError ?? (() => {}));
    server.on('request', (req: IncomingMessage, res: ServerResponse) => void this.#handle(req, res));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.url === OPENAPI_PATH && (req.method === 'GET' || req.method === 'HEAD')) return serveDescription(res, req.method === 'HEAD');
    const { stats } = this.#recorder;
    stats.inFlight++;
    const ex = new Exchange(req, this.#clock());
    try {
      if (this.#latencyMs > 0) {
        await sleep(this.#latencyMs);
        ex.now = this.#clock();
      }
      this.#send(ex, res, await this.#api.answer(ex));
    } catch {
      // The client left (body.ts ClientGone), or the answer could not be written.
      res.destroy();
    } finally {
      stats.inFlight--;
    }
  }

  /** Sends an answer with the headers every API response carries, and records it. */
  #send(ex: Exchange, res: ServerResponse, answer: Answer): void {
    if (res.destroyed) return;
    // An answer given before the limiter ran (a 401, an injected failure) carries the key's window
    // uncounted; with no recognised key, a fresh window of the plan (a key no request ever counts in).
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
    this.#recorder.answered(ex, { status: answer.status, responseHeaders: headers, responseBody: answer.body, errorCode: answer.errorCode });
  }

  /** Copies of the stored pets, ascending id, exact bigint ids. */
  readonly pets = (): Pet[] => this.store.all();
  /** The recorded requests, oldest first. */
  readonly requests = (): RecordedRequest[] => this.#recorder.requests();
  readonly clearRequests = (): void => this.#recorder.clear();
  /** Counts of requests and answers, and of writes to the data file that reached the disk or failed. */
  readonly stats = (): Recorder['stats'] & { persistWrites: number; persistErrors: number } => {
    const { stats } = this.#recorder;
    return { ...stats, byStatus: { ...stats.byStatus }, persistWrites: this.log?.writes ?? 0, persistErrors: this.log?.errors ?? 0 };
  };
  /** Forgets rate-limit counts, pending retries and bans. */
  readonly resetRateLimits = (): void => this.#limiter.reset();
  /** Stores pets directly (no HTTP, no limits); returns them with their ids. */
  readonly seed = (pets: Parameters<PetsApi['seed']>[0]): Pet[] => this.#api.seed(pets);
  /** Test hook: delay before each answer from now on, in ms. */
  readonly setLatency = (ms: number): void => {
    this.#latencyMs = Math.max(0, ms);
  };
  /** Test hook: the next requests fail with an Error body (before auth and limits, not counted). */
  readonly failNext = (failure: InjectedFailure = {}): void => this.#api.failNext(failure);
  /** Syncs the data file to disk (every create is written before its 201). */
  readonly flush = async (): Promise<void> => this.log?.sync();

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
