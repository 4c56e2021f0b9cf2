import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../../helpers/inprocess.js';
import { MOCK_BASE_URL, MOCK_KEY, mockedCli } from '../../helpers/mock-api.js';

const BIG = '9007199254740993'; // 2^53 + 1: a Number would print ...992
const PETS = `[{"id":${BIG},"name":"Rex","categoryId":${BIG},"status":"available"}]`;
const ERROR_501 = '{"code":"not_implemented","message":"store orders are not implemented","status":501}';

const cli = mockedCli({ prefix: ['api'] });
const run = cli.run;

function noKey(r: { stdout: string; stderr: string }) {
  expect(r.stdout).not.toContain(MOCK_KEY);
  expect(r.stderr).not.toContain(MOCK_KEY);
  expect(r.stderr).not.toContain(MOCK_KEY.slice(-8));
}

describe('petstore api: requests', () => {
  it('GETs a path below the base URL with the bearer key and prints the body as received when stdout is not a TTY', async () => {
    cli.api.on('GET', '/v1/pets', { status: 200, body: PETS });
    const r = await run(['/pets']);
    expect(r).toEqual({ stdout: PETS, stderr: '', exitCode: 0 });
    expect(cli.api.requests).toHaveLength(1);
    const req = cli.api.requests[0]!;
    expect(req.method).toBe('GET');
    expect(req.path).toBe('/v1/pets');
    expect(req.headers.authorization).toBe(`Bearer ${MOCK_KEY}`);
    expect(req.headers['user-agent']).toMatch(/^petstore-cli\//);
    expect(req.body).toBeUndefined();
  });

  it('pretty-prints JSON on a TTY with exact int64 digits', async () => {
    cli.api.on('GET', '/v1/pets', { status: 200, body: PETS });
    const r = await run(['/pets'], { stdoutTTY: true, env: { NO_COLOR: '1' } });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(`[\n  {\n    "id": ${BIG},\n    "name": "Rex",\n    "categoryId": ${BIG},\n    "status": "available"\n  }\n]\n`);
  });

  it('prints a non-JSON body as is, with a final newline only on a TTY', async () => {
    cli.api.on('GET', '/v1/health', { status: 200, body: 'ok', headers: { 'content-type': 'text/plain' } });
    expect((await run(['/health'])).stdout).toBe('ok');
    expect((await run(['/health'], { stdoutTTY: true })).stdout).toBe('ok\n');
  });

  it('keeps the query string exactly, repeated keys included', async () => {
    cli.api.on('GET', /^\/v1\/pets/, { status: 200, body: '[]' });
    const r = await run(['/pets?status=sold&status=pending&limit=5']);
    expect(r.exitCode).toBe(0);
    expect(cli.api.requests[0]!.path).toBe('/v1/pets?status=sold&status=pending&limit=5');
  });

  it('accepts a path without a leading slash and a full URL under the base', async () => {
    cli.api.on('GET', /^\/v1\/pets/, { status: 200, body: '[]' });
    expect((await run(['pets'])).exitCode).toBe(0);
    expect((await run([`${MOCK_BASE_URL}/pets?limit=1`])).exitCode).toBe(0);
    expect(cli.api.requests.map((q) => q.path)).toEqual(['/v1/pets', '/v1/pets?limit=1']);
  });

  it('drops a repeated /v1 with a note on stderr (not with --quiet)', async () => {
    cli.api.on('GET', /^\/v1\/pets/, { status: 200, body: '[]' });
    const r = await run(['/v1/pets']);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toMatch(/^note: the base URL already ends in \/v1; sending \/v1\/pets as \/pets/);
    expect(cli.api.requests[0]!.path).toBe('/v1/pets');
    const q = await runInProcess(['--quiet', 'api', '/v1/pets'], {
      dispatcher: cli.api.agent,
      env: { PETSTORE_CONFIG_DIR: cli.cfg.dir, PETSTORE_BASE_URL: MOCK_BASE_URL, PETSTORE_API_KEY: MOCK_KEY },
    });
    expect(q.stderr).toBe('');
  });

  it('POSTs -d as typed (exact digits) with Content-Type application/json', async () => {
    cli.api.on('POST', '/v1/pets', { status: 201, body: `{"id":7,"name":"Rex","categoryId":${BIG}}` });
    const body = `{"name":"Rex", "categoryId":${BIG}}`;
    const r = await run(['/pets', '-d', body]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(`{"id":7,"name":"Rex","categoryId":${BIG}}`);
    const req = cli.api.requests[0]!;
    expect(req.method).toBe('POST');
    expect(req.body).toBe(body);
    expect(req.headers['content-type']).toBe('application/json');
  });

  it('takes -X in any case and sends the body with it', async () => {
    cli.api.on('PUT', '/v1/pets/1', { status: 200, body: '{}' });
    cli.api.on('DELETE', '/v1/pets/1', { status: 204 });
    expect((await run(['-X', 'put', '/pets/1', '-d', '{"name":"Rex"}'])).exitCode).toBe(0);
    const del = await run(['/pets/1', '--method', 'Delete']);
    expect(del).toEqual({ stdout: '', stderr: '', exitCode: 0 });
    expect(cli.api.requests.map((q) => `${q.method} ${q.body ?? ''}`)).toEqual(['PUT {"name":"Rex"}', 'DELETE ']);
  });

  it('reads the body from --input FILE and --input - (stdin)', async () => {
    cli.api.on('POST', '/v1/pets', { status: 201, body: '{}' });
    const file = join(cli.cfg.dir, '..', 'pet.json');
    writeFileSync(file, `{"name":"Tom","categoryId":${BIG}}\n`);
    expect((await run(['/pets', '--input', file])).exitCode).toBe(0);
    expect((await run(['/pets', '--input', '-'], { input: `{"name":"Kit","categoryId":1}` })).exitCode).toBe(0);
    expect(cli.api.requests.map((q) => q.body)).toEqual([`{"name":"Tom","categoryId":${BIG}}\n`, '{"name":"Kit","categoryId":1}']);
    expect(cli.api.requests.every((q) => q.method === 'POST')).toBe(true);
  });

  it('sends extra -H headers, which may replace Accept and Content-Type', async () => {
    cli.api.on('POST', '/v1/pets', { status: 201, body: '{}' });
    const r = await run([
      '/pets',
      '-d',
      '{}',
      '-H',
      'X-Request-Id: 42',
      '-H',
      'Accept: application/problem+json',
      '--header',
      'content-type: application/merge-patch+json',
    ]);
    expect(r.exitCode).toBe(0);
    const h = cli.api.requests[0]!.headers;
    expect(h['x-request-id']).toBe('42');
    expect(h.accept).toBe('application/problem+json');
    expect(h['content-type']).toBe('application/merge-patch+json');
    expect(h.authorization).toBe(`Bearer ${MOCK_KEY}`);
  });

  it('--include prints the status line and the response headers on stderr, never the key', async () => {
    cli.api.on('GET', '/v1/pets', { status: 200, body: '[]', headers: { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '59' } });
    const r = await run(['/pets', '-i', '-H', 'X-Trace: on']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('[]');
    expect(r.stderr).toMatch(/^HTTP 200 OK\n/);
    expect(r.stderr).toContain('content-type: application/json\n');
    expect(r.stderr).toContain('x-ratelimit-remaining: 59\n');
    expect(r.stderr).toMatch(/\n\n$/);
    expect(r.stderr.toLowerCase()).not.toContain('authorization');
    noKey(r);
  });

  it('keeps the key out of --debug traces', async () => {
    cli.api.on('GET', '/v1/pets', { status: 200, body: '[]' });
    const r = await run(['/pets', '--include', '--debug']);
    expect(r.exitCode).toBe(0);
    noKey(r);
  });

  it('prints the quota line after the request like every API command', async () => {
    const reset = String(Math.floor(Date.now() / 1000) + 30);
    cli.api.on('GET', '/v1/pets', {
      status: 200,
      body: '[]',
      headers: { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '57', 'x-ratelimit-reset': reset },
    });
    const r = await run(['/pets', '--verbose']);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toMatch(/^quota: 57\/60 left, resets in \d+s\n$/);
  });
});

describe('petstore api: error statuses print the body and map to exit codes', () => {
  it.each([
    [501, ERROR_501, 1, /^error: server error: store orders are not implemented \(not_implemented, HTTP 501\)\n$/],
    [404, '{"code":"not_found","message":"no pet 9","status":404}', 5, /^error: not found: no pet 9 \(not_found, HTTP 404\)\n$/],
    [
      401,
      '{"code":"unauthorized","message":"invalid key","status":401}',
      4,
      // The key comes from PETSTORE_API_KEY, which overrides any stored key: "auth login" would change nothing.
      /^error: authentication failed: invalid key \(unauthorized, HTTP 401\); PETSTORE_API_KEY is set and overrides the stored key: fix or unset it\n$/,
    ],
    [
      405,
      '{"code":"method_not_allowed","message":"method GET is not allowed on /v1/store/orders; allowed: POST","status":405}',
      2,
      /^error: method not allowed by the server: method GET is not allowed on \/v1\/store\/orders; allowed: POST \(method_not_allowed, HTTP 405\)\n$/,
    ],
    [400, '{"code":"invalid_body","message":"name is required","status":400}', 2, /^error: the server rejected the request: name is required/],
  ])('HTTP %i -> exit %i', async (status, body, exit, message) => {
    cli.api.on('GET', '/v1/store/orders', { status, body });
    const r = await run(['/store/orders']);
    expect(r.stdout).toBe(body);
    expect(r.stderr).toMatch(message);
    expect(r.exitCode).toBe(exit);
    noKey(r);
  });

  it('a 405 without a body names the methods of its Allow header (exit 2)', async () => {
    cli.api.on('DELETE', '/v1/pets', { status: 405, body: '', headers: { allow: 'GET, POST' } });
    const r = await run(['-X', 'DELETE', '/pets']);
    expect(r.stderr).toBe('error: method not allowed by the server: HTTP 405 with an empty body; allowed: GET, POST\n');
    expect(r.exitCode).toBe(2);
  });

  it('never follows a redirect (the key would go along): the 3xx is reported, exit 1', async () => {
    cli.api.on('GET', '/v1/moved', { status: 302, body: '', headers: { location: 'https://evil.example.com/steal' } });
    const r = await run(['/moved', '--include']);
    expect(r.exitCode).toBe(1);
    // biome-ignore lint/correctness/noEmptyCharacterClassInRegex: [^] is any character, newlines included
    expect(r.stderr).toMatch(/^HTTP 302 Found\n[^]*location: https:\/\/evil\.example\.com\/steal\n/);
    expect(r.stderr).toMatch(/error: server error: HTTP 302 with an empty body\n$/);
    expect(cli.api.requests).toHaveLength(1);
    noKey(r);
  });

  it('with --include the headers come before the error line', async () => {
    cli.api.on('GET', '/v1/store/orders', { status: 501, body: ERROR_501 });
    const r = await run(['/store/orders', '--include']);
    expect(r.exitCode).toBe(1);
    // biome-ignore lint/correctness/noEmptyCharacterClassInRegex: [^] is any character, newlines included
    expect(r.stderr).toMatch(/^HTTP 501 Not Implemented\n[^]*\n\nerror: server error: /);
  });
});

describe('petstore api: refused before anything is sent (exit 2)', () => {
  it.each([
    [['https://evil.example.com/v1/pets'], /^error: refusing to send the API key of environment "production" to https:\/\/evil\.example\.com: /],
    [['https://api.test/v2/pets'], /not under the base URL https:\/\/api\.test\/v1/],
    [['/../admin'], /outside the base URL/],
    [['/pets', '-X', 'TRACE'], /invalid -X\/--method "TRACE": must be one of GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS/],
    [['/pets', '-d', '{"name":'], /^error: -d\/--data is not valid JSON: /],
    [['/pets', '-d', '{}', '--input', 'x.json'], /use either -d\/--data or --input/],
    [['/pets', '--input', '/nonexistent/pet.json'], /cannot read --input file "\/nonexistent\/pet\.json": no such file/],
    [['/pets', '-H', 'Authorization: Bearer other'], /refusing -H\/--header "Authorization"/],
    [['/pets', '-H', 'Host: evil.example.com'], /refusing -H\/--header "Host"/],
    [['/pets', '-H', 'nocolon'], /expected 'Name: value'/],
  ])('%j', async (args, message) => {
    const r = await run(args);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
    expect(r.exitCode).toBe(2);
    expect(cli.api.requests).toHaveLength(0);
    noKey(r);
  });

  it('refuses invalid JSON on stdin', async () => {
    const r = await run(['/pets', '--input', '-'], { input: 'not json' });
    expect(r.stderr).toMatch(/^error: --input - \(stdin\) is not valid JSON/);
    expect(r.exitCode).toBe(2);
    expect(cli.api.requests).toHaveLength(0);
  });

  it('without a key: exit 4 and nothing sent', async () => {
    const r = await run(['/pets'], { env: { PETSTORE_API_KEY: undefined } });
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toMatch(/no API key for environment "production"/);
    expect(cli.api.requests).toHaveLength(0);
  });

  it('shows usage with examples', async () => {
    const r = await run(['--help']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain('Usage: petstore api [options] <path>');
    expect(r.stdout).toContain('-X, --method <method>');
    expect(r.stdout).toContain('Examples:');
    expect(r.stdout).toContain("$ petstore api '/pets?status=sold&limit=5' --include");
  });
});
