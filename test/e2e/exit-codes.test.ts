import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedPortUrl, E2E_KEY, e2e, fakeServer, type E2E } from '../helpers/e2e.js';

// The public contract (README "Exit codes"). 3 (bulk), 6 (rate limit) and 130 (Ctrl-C during a request)
// are covered with the features that produce them; 130 at the login prompt is in auth.test.ts.

let t: E2E;
beforeAll(async () => {
  t = await e2e();
  t.sb.seed([{ name: 'Rex', categoryId: 1, status: 'available' }]);
});
afterAll(() => t.close());

/** No stack trace and one line (plus the JSON object with -o json). */
function tidy(stderr: string, lines = 1) {
  expect(stderr).not.toMatch(/\n\s+at /);
  expect(stderr.trim().split('\n')).toHaveLength(lines);
}

describe('exit codes of the built CLI', () => {
  it('0: success', async () => {
    const r = await t.cli(['pets', 'list']);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe('');
  });

  it('1: a 5xx with an HTML body is reported as such, never as a JSON parse error', async () => {
    const html = await fakeServer((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html><body><h1>502 Bad Gateway</h1></body></html>');
    });
    try {
      const r = await t.cli(['pets', 'list', '--max-retries', '0'], { env: { PETSTORE_BASE_URL: html.baseUrl } });
      expect(r.exitCode).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe('error: server error: HTTP 502 with a non-JSON body (text/html)\n');
      const json = await t.cli(['pets', 'list', '--max-retries', '0', '-o', 'json'], { env: { PETSTORE_BASE_URL: html.baseUrl } });
      tidy(json.stderr, 2);
      expect(JSON.parse(json.stderr.trim().split('\n')[1]!)).toEqual({
        error: { code: 'http_502', message: 'server error: HTTP 502 with a non-JSON body (text/html)', status: 502, exitCode: 1 },
      });
    } finally {
      await html.close();
    }
  });

  it('1: a 200 of the wrong shape is a malformed response', async () => {
    const odd = await fakeServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"items":[]}');
    });
    try {
      const r = await t.cli(['pets', 'list'], { env: { PETSTORE_BASE_URL: odd.baseUrl } });
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toBe('error: malformed response: expected a list of pets, got JSON of the wrong shape (HTTP 200)\n');
    } finally {
      await odd.close();
    }
  });

  it('2: usage errors send nothing and name the flag and the allowed values', async () => {
    t.sb.clearRequests();
    const cases: [string[], string][] = [
      [['pets', 'list', '--limit', '500'], 'invalid --limit "500": must be a whole number from 1 to 100'],
      [['pets', 'list', '--status', 'adopted'], 'invalid --status "adopted": must be one of available, pending, sold'],
      [['pets', 'list', '-o', 'xml'], 'invalid --output "xml": must be one of table, json, ndjson, csv'],
      [['pets', 'add', '--name', 'x'], 'missing --category-id: "pets add" needs --name and --category-id (or --file)'],
      [['pets', 'get', 'abc'], 'invalid pet id "abc"'],
      [['pets', 'list', '--nope'], "unknown option '--nope'"],
      [['pets', 'lst'], "unknown command 'lst'"],
      [['--timeout', 'soon', 'pets', 'list'], 'invalid --timeout "soon"'],
    ];
    for (const [args, message] of cases) {
      const r = await t.cli(args);
      expect(r.exitCode, args.join(' ')).toBe(2);
      expect(r.stderr).toContain(message);
      expect(r.stdout).toBe('');
    }
    expect(t.sb.requests()).toHaveLength(0);
  });

  it('2: a 400 from the server', async () => {
    const r = await t.cli(['pets', 'add', '--name', 'x'.repeat(5000), '--category-id', '1']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/^error: the server rejected the request: .+ \(\w+, HTTP 400\)\n$/);
  });

  it('2: a 405 from the server is the fault of the method, not a server error', async () => {
    const r = await t.cli(['api', '-X', 'PUT', '/pets']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toBe(
      'error: method not allowed by the server: method PUT is not allowed on /v1/pets; allowed: GET, POST (method_not_allowed, HTTP 405)\n',
    );
  });

  it('4: no key (nothing sent), and a key the server refuses (with the login hint)', async () => {
    t.sb.clearRequests();
    const none = await t.cli(['pets', 'list'], { key: null });
    expect(none.exitCode).toBe(4);
    expect(t.sb.requests()).toHaveLength(0);
    const bad = await t.cli(['pets', 'list', '-o', 'json'], { key: 'sk_not_a_real_key_0000' });
    expect(bad.exitCode).toBe(4);
    tidy(bad.stderr, 2);
    // The key came from PETSTORE_API_KEY, which overrides any stored one: "auth login" would not help.
    expect(bad.stderr).toMatch(/^error: authentication failed: .+ \(\w+, HTTP 401\); PETSTORE_API_KEY is set and overrides the stored key: fix or unset it\n/);
    expect(JSON.parse(bad.stderr.trim().split('\n')[1]!).error).toMatchObject({
      status: 401,
      exitCode: 4,
      advice: 'PETSTORE_API_KEY is set and overrides the stored key: fix or unset it',
    });
    expect(bad.stderr).not.toContain('sk_not_a_real_key_0000');

    // A stored key the server refuses: log in again.
    await t.cli(['auth', 'login', '--no-verify'], { key: null, input: 'sk_not_a_real_key_0000' });
    const stored = await t.cli(['pets', 'list', '-o', 'json'], { key: null });
    expect(stored.exitCode).toBe(4);
    expect(stored.stderr).toMatch(/^error: authentication failed: .+ \(\w+, HTTP 401\); run: petstore auth login --env production\n/);
    expect(JSON.parse(stored.stderr.trim().split('\n')[1]!).error).toMatchObject({ status: 401, exitCode: 4, hint: 'petstore auth login --env production' });
    expect(stored.stderr).not.toContain('sk_not_a_real_key_0000');
  });

  it('5: not found', async () => {
    const r = await t.cli(['pets', 'get', '424242', '-q']);
    expect(r.exitCode).toBe(5);
    tidy(r.stderr);
  });

  it('7: connection refused', async () => {
    const r = await t.cli(['pets', 'list', '--max-retries', '0'], { env: { PETSTORE_BASE_URL: await closedPortUrl() } });
    expect(r.exitCode).toBe(7);
    expect(r.stderr).toMatch(/^error: could not connect to 127\.0\.0\.1:\d+: connection refused\n$/);
  });

  it('7: DNS failure', async () => {
    const r = await t.cli(['pets', 'list', '--max-retries', '0'], { env: { PETSTORE_BASE_URL: 'https://petstore.invalid/v1' } });
    expect(r.exitCode).toBe(7);
    tidy(r.stderr);
  });

  it('no stack trace without --debug; one with it', async () => {
    const plain = await t.cli(['pets', 'list', '--max-retries', '0'], { env: { PETSTORE_BASE_URL: await closedPortUrl() } });
    tidy(plain.stderr);
    const debug = await t.cli(['pets', 'list', '--max-retries', '0', '--debug'], { env: { PETSTORE_BASE_URL: await closedPortUrl() } });
    expect(debug.stderr).toMatch(/\n\s+at /);
    expect(debug.stderr).not.toContain(E2E_KEY);
  });
});
