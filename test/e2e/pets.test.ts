import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { E2E_KEY, expectNoKey, e2e, type E2E } from '../helpers/e2e.js';

const BIG = '9007199254740993'; // 2^53 + 1

let t: E2E;
beforeAll(async () => {
  t = await e2e({ firstId: BIG });
  // The first pet gets id 2^53 + 1: a lossy Number anywhere on the way would show ...992.
  t.sb.seed([{ name: 'Rex', categoryId: BigInt(BIG), status: 'available' }]);
});
afterAll(() => t.close());
beforeEach(() => t.sb.clearRequests());

describe('petstore pets (built CLI against the sandbox)', () => {
  it('add: POSTs the new pet with the bearer key, Accept, User-Agent, and prints it with its exact id', async () => {
    const r = await t.cli(['pets', 'add', '--name', 'Max', '--category-id', BIG, '--status', 'available', '-o', 'json']);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(`{"id":9007199254740994,"name":"Max","categoryId":${BIG},"status":"available"}\n`);
    expect(t.sb.pets().map((p) => p.id)).toContain(9007199254740994n);
    const [req] = t.sb.requests();
    expect(req).toMatchObject({ method: 'POST', path: '/v1/pets', status: 201 });
    expect(req!.headers.authorization).toBe(`Bearer ${E2E_KEY}`);
    expect(req!.headers.accept).toBe('application/json');
    expect(req!.headers['user-agent']).toBe('petstore-cli/0.1.0');
    expect(JSON.parse(req!.body)).toMatchObject({ name: 'Max', status: 'available' });
    expect(req!.body).toContain(`"categoryId":${BIG}`);
    expectNoKey(r);
  });

  it('add without --status sends no status; the table is one TSV row when piped', async () => {
    const r = await t.cli(['pets', 'add', '--name', 'Tom', '--category-id', '2']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^id\tname\tcategoryId\tstatus\n\d+\tTom\t2\t\n$/);
    expect(t.sb.requests()[0]!.body).toBe('{"name":"Tom","categoryId":2}');
  });

  it('list: sends limit and status, prints only pets of that status', async () => {
    const r = await t.cli(['pets', 'list', '--limit', '100', '--status', 'available', '-o', 'ndjson']);
    expect(r.exitCode).toBe(0);
    const [req] = t.sb.requests();
    expect(req!.path).toBe('/v1/pets');
    expect(req!.query).toEqual({ limit: '100', status: 'available' });
    expect(req!.headers.authorization).toBe(`Bearer ${E2E_KEY}`);
    const lines = r.stdout.trim().split('\n');
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ status: 'available' });
    expect(r.stdout).toContain(`"id":${BIG}`);
  });

  it('list: an empty result is a header line, [] or nothing, and exit 0', async () => {
    for (const [format, out] of [
      ['table', 'id\tname\tcategoryId\tstatus\n'],
      ['json', '[]\n'],
      ['ndjson', ''],
      ['csv', 'id,name,categoryId,status\n'],
    ] as const) {
      const r = await t.cli(['pets', 'list', '--status', 'sold', '-o', format]);
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe(out);
    }
  });

  it('get: requests exactly /pets/<id> for an id above 2^53 and prints it exactly in every format', async () => {
    for (const format of ['table', 'json', 'ndjson', 'csv']) {
      t.sb.clearRequests();
      const r = await t.cli(['pets', 'get', BIG, '-o', format]);
      expect(r.exitCode).toBe(0);
      expect(t.sb.requests()[0]!.path).toBe(`/v1/pets/${BIG}`);
      expect(r.stdout).toContain(BIG);
      expect(r.stdout).not.toContain('9007199254740992');
    }
    const json = await t.cli(['pets', 'get', BIG, '--json', '-q']);
    expect(json.stdout).toBe(`{"id":${BIG},"name":"Rex","categoryId":${BIG},"status":"available"}\n`);
  });

  it('get: one line on stderr says the operation is deprecated, when it goes (the sandbox sends Sunset) and what replaces it', async () => {
    const r = await t.cli(['pets', 'get', BIG]);
    expect(r.stderr).toBe(
      'warning: "pets get" uses GET /pets/{petId}, which is deprecated and will be removed on 5 December 2030; use "petstore pets list --status <status>" instead\n',
    );
    const quiet = await t.cli(['pets', 'get', BIG, '--quiet']);
    expect(quiet.stderr).toBe('');
  });

  it('get with several ids, one missing: the found ones printed, one line for the missing one, exit 5', async () => {
    t.sb.clearRequests();
    const r = await t.cli(['pets', 'get', BIG, '424242', BIG, '-o', 'json']);
    expect(r.exitCode).toBe(5);
    const pet = `{"id":${BIG},"name":"Rex","categoryId":${BIG},"status":"available"}`;
    expect(r.stdout).toBe(`[${pet},${pet}]\n`);
    expect(r.stderr.split('\n').filter((l) => l.startsWith('error:'))).toEqual([expect.stringMatching(/^error: pet 424242: not found: /)]);
    expect(r.stderr.split('\n').filter((l) => l.startsWith('warning:'))).toHaveLength(1);
    expect(
      t.sb
        .requests()
        .map((q) => q.path)
        .sort(),
    ).toEqual(['/v1/pets/424242', `/v1/pets/${BIG}`, `/v1/pets/${BIG}`]);
    t.sb.clearRequests();
    const bad = await t.cli(['pets', 'get', BIG, 'nope']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('invalid pet id "nope"');
    expect(t.sb.requests()).toEqual([]);
  });

  it('get: 404 is exit 5 with the server message', async () => {
    const r = await t.cli(['pets', 'get', '123', '-q']);
    expect(r.exitCode).toBe(5);
    expect(r.stderr).toMatch(/^error: not found: .+ \(\w+, HTTP 404\)\n$/);
    expect(r.stdout).toBe('');
  });

  it('never sends a request when the input is invalid', async () => {
    for (const args of [
      ['pets', 'list', '--limit', '0'],
      ['pets', 'list', '--status', 'lost'],
      ['pets', 'add', '--name', '', '--category-id', '1'],
      ['pets', 'add', '--name', 'x', '--category-id', '9223372036854775808'],
      ['pets', 'get', '9223372036854775808'],
      ['pets', 'get'],
      ['pets', 'list', '--bogus'],
    ]) {
      const r = await t.cli(args);
      expect(r.exitCode, args.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
    }
    expect(t.sb.requests()).toHaveLength(0);
  });

  it('every command has examples in --help', async () => {
    for (const cmd of [
      ['pets', 'list'],
      ['pets', 'add'],
      ['pets', 'get'],
      ['env', 'list'],
      ['env', 'use'],
      ['env', 'show'],
      ['env', 'set'],
      ['auth', 'login'],
      ['auth', 'status'],
      ['auth', 'logout'],
    ]) {
      const r = await t.cli([...cmd, '--help']);
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toContain('Examples:');
      expect(r.stdout).toContain(`$ petstore ${cmd[0]}`);
    }
  });
});
