import { join } from 'node:path';
import { MockAgent, type Dispatcher } from 'undici';
import { afterEach, beforeEach } from 'vitest';
import { tempDir } from './cli.js';
import { runInProcess, type InProcessOptions } from './inprocess.js';

const MOCK_ORIGIN = 'https://api.test';
export const MOCK_BASE_URL = `${MOCK_ORIGIN}/v1`;
export const MOCK_KEY = 'sk_test_mock_0123456789abcd';

export interface SeenRequest {
  method: string;
  /** Path with query, as sent (e.g. "/v1/pets?limit=1"). */
  path: string;
  headers: Record<string, string>;
  body: string | undefined;
}

export interface Reply {
  status: number;
  /** A string is sent as is; anything else as JSON.stringify. */
  body?: unknown;
  headers?: Record<string, string>;
}

function lowerHeaders(h: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!h) return out;
  if (Array.isArray(h)) {
    for (let i = 0; i + 1 < h.length; i += 2) out[String(h[i]).toLowerCase()] = String(h[i + 1]);
  } else if (typeof (h as Headers).forEach === 'function' && !(h.constructor === Object)) {
    (h as Headers).forEach((v, k) => {
      out[k.toLowerCase()] = v;
    });
  } else {
    for (const [k, v] of Object.entries(h as Record<string, unknown>)) out[k.toLowerCase()] = String(v);
  }
  return out;
}

function seenRequest(opts: Dispatcher.DispatchOptions): SeenRequest {
  return {
    method: opts.method,
    path: opts.path,
    headers: lowerHeaders(opts.headers),
    body: typeof opts.body === 'string' ? opts.body : opts.body == null ? undefined : String(opts.body),
  };
}

/**
 * An undici MockAgent for the in-process runner: routes answer by method and path, and every
 * request sent through `agent` is recorded, routed or not (so "nothing was sent" needs no catch-all
 * route to be true). Unrouted requests fail the way a refused connection would.
 * A route no request used is a stub the test did not need, or a request the CLI did not send:
 * assertAllUsed() fails then (mockedCli() checks it after every test).
 */
export function mockApi(origin = MOCK_ORIGIN) {
  const mock = new MockAgent();
  mock.disableNetConnect();
  const pool = mock.get(origin);
  const requests: SeenRequest[] = [];
  // The dispatcher to give the CLI: the MockAgent, recording each request as it is dispatched.
  const agent: Dispatcher = mock.compose((dispatch) => (opts, handler) => {
    requests.push(seenRequest(opts));
    return dispatch(opts, handler);
  });
  return {
    agent,
    requests,
    /** Answers every matching request (persisted) with reply (or a function of the request). */
    on(method: string, path: string | RegExp | ((p: string) => boolean), reply: Reply | ((req: SeenRequest) => Reply)) {
      pool
        .intercept({ method, path })
        .reply((opts) => {
          const r = typeof reply === 'function' ? reply(seenRequest(opts as Dispatcher.DispatchOptions)) : reply;
          const data = r.body === undefined ? '' : typeof r.body === 'string' ? r.body : JSON.stringify(r.body);
          return {
            statusCode: r.status,
            data,
            responseOptions: { headers: { 'content-type': 'application/json', ...r.headers } },
          };
        })
        .persist();
    },
    /** The request fails at the transport (like ECONNREFUSED). */
    fail(method: string, path: string | RegExp | ((p: string) => boolean), error: Error) {
      pool.intercept({ method, path }).replyWithError(error).persist();
    },
    /** Throws, listing them, when a route (on or fail) was never used by a request. */
    assertAllUsed: () => mock.assertNoPendingInterceptors(),
    close: () => mock.close(),
  };
}

/** A temporary folder to use as PETSTORE_CONFIG_DIR in in-process tests. */
export function tempConfigDir(): { dir: string; cleanup: () => void } {
  const root = tempDir('petstore-unit-');
  return { dir: join(root.dir, 'petstore'), cleanup: root.cleanup };
}

/**
 * The usual in-process setup: a fresh MockAgent and config folder for each test (registered as
 * beforeEach/afterEach; after each test every route must have been used, see assertAllUsed), and
 * `run(args)` = the CLI with `prefix` before args, the mock as dispatcher, PETSTORE_CONFIG_DIR set,
 * and `env` (by default the mock's base URL and key) under the test's own env.
 */
export function mockedCli(options: { prefix?: string[]; env?: Record<string, string> } = {}) {
  const prefix = options.prefix ?? [];
  const baseEnv = options.env ?? { PETSTORE_BASE_URL: MOCK_BASE_URL, PETSTORE_API_KEY: MOCK_KEY };
  let api: ReturnType<typeof mockApi> | undefined;
  let cfg: ReturnType<typeof tempConfigDir> | undefined;
  beforeEach(() => {
    api = mockApi();
    cfg = tempConfigDir();
  });
  afterEach(async () => {
    try {
      api?.assertAllUsed();
    } finally {
      await api?.close();
      cfg?.cleanup();
    }
  });
  const cli = {
    get api() {
      return api!;
    },
    get cfg() {
      return cfg!;
    },
    run(args: string[], opts: InProcessOptions = {}) {
      return runInProcess([...prefix, ...args], {
        dispatcher: cli.api.agent,
        ...opts,
        env: { PETSTORE_CONFIG_DIR: cli.cfg.dir, PETSTORE_STATE_DIR: join(cli.cfg.dir, 'state'), ...baseEnv, ...opts.env },
      });
    },
  };
  return cli;
}
