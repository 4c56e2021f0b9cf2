// The commands in-process on both HTTP engines against one real local server: node:http (what a
// user's single request goes through) and undici (proxies, bulk runs; and the MockAgent that most
// in-process command tests use). What the user sees must be the same on both.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from 'undici';
import { json, startFaultServer, type FaultServer } from '../../helpers/fault-server.js';
import { runInProcess } from '../../helpers/inprocess.js';
import { tempConfigDir } from '../../helpers/mock-api.js';
import { FakeClock } from '../http/fake-clock.js';

const KEY = 'sk_engines_0123456789abcdef';
const PET = { id: 9007199254740993n, name: 'Rex', categoryId: 3, status: 'available' };
const PET_JSON = '{"id":9007199254740993,"name":"Rex","categoryId":3,"status":"available"}';
/** Both engines run on the same fake instant, so times in the output compare equal. */
const T0 = Math.ceil(Date.now() / 1000) * 1000;
const QUOTA = { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '59', 'x-ratelimit-reset': String(T0 / 1000 + 60) };

let server: FaultServer;
let seen429 = 0;
const dirs: ReturnType<typeof tempConfigDir>[] = [];

beforeAll(async () => {
  server = await startFaultServer((req) => {
    if (req.method === 'GET' && req.path === '/v1/pets')
      return { ...json(200, []), body: `[${PET_JSON}]`, headers: { 'content-type': 'application/json', ...QUOTA } };
    if (req.method === 'POST' && req.path === '/v1/pets') {
      const body = JSON.parse(req.body) as Record<string, unknown>;
      if (body.name === 'busy' && seen429++ % 2 === 0)
        return json(429, { code: 'rate_limited', message: 'slow down', status: 429 }, { 'retry-after': '0', ...QUOTA });
      return { ...json(201, {}), body: PET_JSON.replace('"Rex"', JSON.stringify(body.name)), headers: { 'content-type': 'application/json', ...QUOTA } };
    }
    if (req.method === 'GET' && req.path === '/v1/pets/404') return json(404, { code: 'not_found', message: 'no pet 404', status: 404 }, QUOTA);
    if (req.method === 'GET' && req.path.startsWith('/v1/pets/'))
      return { ...json(200, {}), body: PET_JSON, headers: { 'content-type': 'application/json', ...QUOTA } };
    return json(500, { code: 'unexpected', message: `${req.method} ${req.path}`, status: 500 });
  });
});

afterAll(async () => {
  await server.close();
  for (const d of dirs) d.cleanup();
});

const ENGINES = [
  { engine: 'node:http', dispatcher: () => undefined },
  { engine: 'undici', dispatcher: () => new Agent() },
] as const;

async function run(engine: (typeof ENGINES)[number], args: string[]) {
  const dispatcher = engine.dispatcher();
  // A config folder per run: the rate-limit state (a 429's gate) must not carry over to the other engine.
  const cfg = tempConfigDir();
  dirs.push(cfg);
  try {
    return await runInProcess(args, {
      env: { PETSTORE_CONFIG_DIR: cfg.dir, PETSTORE_BASE_URL: server.baseUrl, PETSTORE_API_KEY: KEY },
      clock: new FakeClock(T0),
      ...(dispatcher ? { dispatcher } : {}),
    });
  } finally {
    await dispatcher?.close();
  }
}

describe('the same commands, the same output, on both engines', () => {
  const cases: [string, string[]][] = [
    ['pets list -o json', ['pets', 'list', '-o', 'json']],
    ['pets list (table)', ['pets', 'list', '--limit', '5', '--status', 'available']],
    ['pets add', ['pets', 'add', '--name', 'Tom', '--category-id', '2', '-o', 'json']],
    ['pets add after a 429 with Retry-After: 0', ['pets', 'add', '--name', 'busy', '--category-id', '2', '-o', 'json']],
    ['pets get (deprecated)', ['pets', 'get', '9007199254740993', '-o', 'json']],
    ['pets get, 404', ['pets', 'get', '404']],
    ['quota', ['quota', '-o', 'json']],
  ];

  for (const [name, args] of cases) {
    it(name, async () => {
      const results = [];
      for (const engine of ENGINES) results.push(await run(engine, args));
      const [viaNode, viaUndici] = results;
      expect(viaNode).toEqual(viaUndici);
      expect(viaNode!.stderr).not.toContain(KEY);
    });
  }

  it('what the answers say reaches the user (int64 ids exact, errors mapped)', async () => {
    const list = await run(ENGINES[0], ['pets', 'list', '-o', 'json']);
    expect(list.exitCode).toBe(0);
    expect(list.stdout).toContain(String(PET.id));
    const missing = await run(ENGINES[0], ['pets', 'get', '404']);
    expect(missing.exitCode).not.toBe(0);
    expect(missing.stderr).toMatch(/not found: no pet 404 \(not_found, HTTP 404\)/);
  });
});
