// Property: arbitrary flag values never crash the CLI. Each is either accepted
// (exit 0, and exactly the value the user meant is sent) or rejected with exit
// 2 before anything is sent; never another exit code, never a stack trace.
// Runs the whole CLI in-process (test/helpers/inprocess.ts) against an undici
// MockAgent that records every request: a request for rejected input fails the test.
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { INT64_MAX, INT64_MIN } from '../../../src/json/int64.js';
import { runInProcess, type InProcessResult } from '../../helpers/inprocess.js';
import { MOCK_BASE_URL, MOCK_KEY, mockApi, tempConfigDir, type SeenRequest } from '../../helpers/mock-api.js';

const RUNS = 250;

let api: ReturnType<typeof mockApi>;
let cfg: ReturnType<typeof tempConfigDir>;

beforeAll(() => {
  cfg = tempConfigDir();
});
afterAll(() => cfg.cleanup());
// A fresh mock for each property, with only the route it needs: a route no run used fails the test.
beforeEach(() => {
  api = mockApi();
});
afterEach(async () => {
  try {
    api.assertAllUsed();
  } finally {
    await api.close();
  }
});

const routes = {
  list: () => api.on('GET', (p) => p === '/v1/pets' || p.startsWith('/v1/pets?'), { status: 200, body: '[{"id":1,"name":"Rex","categoryId":1}]' }),
  get: () =>
    api.on(
      'GET',
      (p) => p.startsWith('/v1/pets/'),
      (req) => {
        const id = req.path.slice('/v1/pets/'.length);
        return { status: 200, body: `{"id":${id},"name":"Rex","categoryId":1}` };
      },
    ),
  add: () => api.on('POST', '/v1/pets', (req) => ({ status: 201, body: `{"id":7,${(req.body ?? '{}').slice(1)}` })),
};

/** Runs one invocation; returns the result and the requests it sent. */
async function run(args: string[]): Promise<{ r: InProcessResult; sent: SeenRequest[] }> {
  const before = api.requests.length;
  const r = await runInProcess(args, {
    dispatcher: api.agent,
    env: { PETSTORE_CONFIG_DIR: cfg.dir, PETSTORE_BASE_URL: MOCK_BASE_URL, PETSTORE_API_KEY: MOCK_KEY },
  });
  return { r, sent: api.requests.slice(before) };
}

/** Accepted (exit 0, one request) or rejected (exit 2, an error line, nothing sent); nothing else. */
function acceptedOrRejected({ r, sent }: { r: InProcessResult; sent: SeenRequest[] }, label: string): boolean {
  expect(r.stderr, label).not.toMatch(/^\s+at |unexpected error/m);
  expect([0, 2], `${label}: ${r.stderr}`).toContain(r.exitCode);
  if (r.exitCode === 2) {
    expect(sent, `${label}: sent for rejected input`).toHaveLength(0);
    expect(r.stderr, label).toMatch(/^error: /);
    expect(r.stdout, label).toBe('');
    return false;
  }
  expect(sent, label).toHaveLength(1);
  return true;
}

/** Text a user, a script or a fuzzer might pass: anything, plus near-misses of valid values. */
function anyText(...nearMisses: fc.Arbitrary<string>[]): fc.Arbitrary<string> {
  return fc.oneof(
    fc.string(),
    fc.string({ unit: 'binary' }),
    fc.string({ unit: 'grapheme' }),
    fc.integer().map(String),
    fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
    fc.double().map(String),
    fc
      .tuple(fc.constantFrom('', ' ', '\t', '0', '+', '-', '00'), fc.nat(200), fc.constantFrom('', ' ', '\n', 'x', '.0', 'e2'))
      .map(([a, n, b]) => `${a}${n}${b}`),
    ...nearMisses,
  );
}

/** The integer a decimal text denotes, or undefined (the documented int64 syntax: optional minus, no leading zeros). */
function int64Of(text: string): bigint | undefined {
  const t = text.trim();
  if (!/^-?(0|[1-9]\d*)$/.test(t)) return undefined;
  const n = BigInt(t);
  return n >= INT64_MIN && n <= INT64_MAX ? n : undefined;
}

describe('flag values (property, in-process CLI)', () => {
  it(`pets list --limit <anything>: exit 0 with exactly that limit for 1..100, else exit 2 and nothing sent (${RUNS} runs)`, async () => {
    routes.list();
    await fc.assert(
      fc.asyncProperty(anyText(fc.integer({ min: -5, max: 105 }).map(String)), async (value) => {
        const res = await run(['pets', 'list', `--limit=${value}`]);
        const ok = acceptedOrRejected(res, `--limit ${JSON.stringify(value)}`);
        const t = value.trim();
        const expected = /^\d+$/.test(t) && Number(t) >= 1 && Number(t) <= 100;
        expect(ok, JSON.stringify(value)).toBe(expected);
        if (ok) expect(res.sent[0]!.path).toBe(`/v1/pets?limit=${Number(t)}`);
      }),
      { numRuns: RUNS },
    );
  });

  it(`pets list --status <anything>: only available|pending|sold are sent (${RUNS} runs)`, async () => {
    routes.list();
    await fc.assert(
      fc.asyncProperty(anyText(fc.constantFrom('available', 'pending', 'sold', 'Available', 'sold ', ' pending', 'availabl', '')), async (value) => {
        const res = await run(['pets', 'list', `--status=${value}`]);
        const ok = acceptedOrRejected(res, `--status ${JSON.stringify(value)}`);
        expect(ok).toBe(['available', 'pending', 'sold'].includes(value));
        if (ok) expect(res.sent[0]!.path).toBe(`/v1/pets?status=${value}`);
      }),
      { numRuns: RUNS },
    );
  });

  it(`pets get <anything>: only an int64 is sent, as exact digits (${RUNS} runs)`, async () => {
    const near = fc.oneof(
      fc.bigInt({ min: INT64_MIN - 3n, max: INT64_MAX + 3n }).map(String),
      fc.constantFrom(String(INT64_MAX), String(INT64_MIN), String(INT64_MAX + 1n), String(INT64_MIN - 1n), '007', '-0', '0x10', '1_000'),
    );
    routes.get();
    await fc.assert(
      fc.asyncProperty(anyText(near), async (value) => {
        // "--" so that a value such as "--help" or "-5" is the argument, as a script would pass it.
        const res = await run(['pets', 'get', '-q', '--', value]);
        const ok = acceptedOrRejected(res, `pets get ${JSON.stringify(value)}`);
        const id = int64Of(value);
        expect(ok, JSON.stringify(value)).toBe(id !== undefined);
        if (ok) expect(res.sent[0]!.path).toBe(`/v1/pets/${id}`);
      }),
      { numRuns: RUNS },
    );
  });

  it(`pets add --category-id <anything> --name <anything>: the body carries exactly those values (${RUNS} runs)`, async () => {
    const near = fc.oneof(fc.bigInt({ min: INT64_MIN - 3n, max: INT64_MAX + 3n }).map(String), fc.constantFrom('9007199254740993', '1.0', '1e3', ''));
    routes.add();
    await fc.assert(
      fc.asyncProperty(anyText(near), anyText(fc.constantFrom('Rex', ' ', '', '\t\n', 'Tom "the cat", Jr.', '-x', '--help')), async (categoryId, name) => {
        const res = await run(['pets', 'add', `--category-id=${categoryId}`, `--name=${name}`, '-o', 'json']);
        const ok = acceptedOrRejected(res, `--category-id ${JSON.stringify(categoryId)} --name ${JSON.stringify(name)}`);
        const id = int64Of(categoryId);
        expect(ok).toBe(id !== undefined && name.trim() !== '');
        if (ok) {
          const body = res.sent[0]!.body ?? '';
          expect(body).toBe(`{"name":${JSON.stringify(name)},"categoryId":${id}}`);
          expect(res.r.stdout).toContain(`"categoryId":${id}`);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it(`global --max-retries / --max-wait <anything>: exit 0 or 2 (${RUNS} runs)`, async () => {
    routes.list();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('--max-retries', '--max-wait'),
        anyText(fc.constantFrom('0', '3', '1.5', '-1', '1e3', '9'.repeat(400))),
        async (flag, value) => {
          acceptedOrRejected(await run([`${flag}=${value}`, 'pets', 'list']), `${flag} ${JSON.stringify(value)}`);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it(`global --timeout <anything>: exit 0 or 2 (7 only for a real timeout of a tiny value), never a crash (${RUNS} runs)`, async () => {
    routes.list();
    await fc.assert(
      fc.asyncProperty(anyText(fc.constantFrom('30', '0.5', '2.5', '0', '-1', '1e3')), async (value) => {
        const { r, sent } = await run([`--timeout=${value}`, 'pets', 'list']);
        const label = `--timeout ${JSON.stringify(value)}: ${r.stderr}`;
        expect(r.stderr, label).not.toMatch(/^\s+at |unexpected error/m);
        if (r.exitCode === 7) expect(r.stderr, label).toMatch(/^error: request timed out after/);
        else acceptedOrRejected({ r, sent }, label);
      }),
      {
        numRuns: RUNS,
        // Found by this property: a fraction of a millisecond, and more than 2^32-1 ms, crashed AbortSignal.timeout.
        examples: [['1.0005'], ['4294968'], ['99999999999'], ['9'.repeat(400)]],
      },
    );
  });
});
