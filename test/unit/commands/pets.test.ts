import { describe, expect, it } from 'vitest';
import { MOCK_KEY, mockedCli } from '../../helpers/mock-api.js';

const BIG = '9007199254740993'; // 2^53 + 1: a Number would print ...992
const PETS = `[{"id":${BIG},"name":"Rex","categoryId":${BIG},"status":"available"},{"id":2,"name":"Tom, \\"the cat\\"","categoryId":1}]`;

const cli = mockedCli();
const run = cli.run;

describe('pets list', () => {
  it('sends limit and status, the bearer key, Accept and User-Agent, and prints TSV when stdout is not a TTY', async () => {
    cli.api.on('GET', /^\/v1\/pets/, { status: 200, body: PETS });
    const r = await run(['pets', 'list', '--limit', '5', '--status', 'available']);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(`id\tname\tcategoryId\tstatus\n${BIG}\tRex\t${BIG}\tavailable\n2\tTom, "the cat"\t1\t\n`);
    expect(cli.api.requests).toHaveLength(1);
    const req = cli.api.requests[0]!;
    expect(req.method).toBe('GET');
    expect(req.path).toBe('/v1/pets?limit=5&status=available');
    expect(req.headers.authorization).toBe(`Bearer ${MOCK_KEY}`);
    expect(req.headers.accept).toBe('application/json');
    expect(req.headers['user-agent']).toMatch(/^petstore-cli\/\S+$/);
  });

  it('sends no query when no flags are given', async () => {
    cli.api.on('GET', /^\/v1\/pets/, { status: 200, body: '[]' });
    await run(['pets', 'list']);
    expect(cli.api.requests[0]!.path).toBe('/v1/pets');
  });

  it('prints exact int64 ids in json, ndjson and csv', async () => {
    cli.api.on('GET', /^\/v1\/pets/, { status: 200, body: PETS });
    const json = await run(['pets', 'list', '-o', 'json']);
    expect(json.stdout).toBe(`${PETS}\n`);
    const jsonFlag = await run(['pets', 'list', '--json']);
    expect(jsonFlag.stdout).toBe(`${PETS}\n`);
    const nd = await run(['pets', 'list', '-o', 'ndjson']);
    expect(nd.stdout).toBe(`{"id":${BIG},"name":"Rex","categoryId":${BIG},"status":"available"}\n{"id":2,"name":"Tom, \\"the cat\\"","categoryId":1}\n`);
    const csv = await run(['pets', 'list', '--output', 'csv']);
    expect(csv.stdout).toBe(`id,name,categoryId,status\n${BIG},Rex,${BIG},available\n2,"Tom, ""the cat""",1,\n`);
  });

  it('pretty-prints JSON on a TTY and compact otherwise', async () => {
    cli.api.on('GET', /^\/v1\/pets/, { status: 200, body: '[{"id":1,"name":"A","categoryId":2}]' });
    const tty = await run(['pets', 'list', '-o', 'json'], { stdoutTTY: true, env: { NO_COLOR: '1' } });
    expect(tty.stdout).toBe('[\n  {\n    "id": 1,\n    "name": "A",\n    "categoryId": 2\n  }\n]\n');
    const colour = await run(['pets', 'list', '-o', 'json'], { stdoutTTY: true });
    expect(colour.stdout).toBe(
      '[\n  {\n    \u001b[34m"id"\u001b[39m: \u001b[36m1\u001b[39m,\n    \u001b[34m"name"\u001b[39m: \u001b[32m"A"\u001b[39m,\n    \u001b[34m"categoryId"\u001b[39m: \u001b[36m2\u001b[39m\n  }\n]\n',
    );
  });

  it('draws a borderless table with upper-case headings on a TTY, with colour only when allowed', async () => {
    cli.api.on('GET', /^\/v1\/pets/, { status: 200, body: PETS });
    const plain = await run(['pets', 'list'], { stdoutTTY: true, env: { NO_COLOR: '1' } });
    expect(plain.stdout).toBe(
      [
        `ID                NAME            CATEGORY ID       STATUS`,
        `${BIG}  Rex             ${BIG}  available`,
        `2                 Tom, "the cat"  1`,
        '',
      ].join('\n'),
    );
    expect(plain.stdout).not.toContain('\u001b[');
    const colour = await run(['pets', 'list'], { stdoutTTY: true });
    expect(colour.stdout).toContain('\u001b[');
    const noColorFlag = await run(['pets', 'list', '--no-color'], { stdoutTTY: true });
    expect(noColorFlag.stdout).not.toContain('\u001b[');
  });

  it('prints an empty table, [] or nothing for an empty list, and exits 0', async () => {
    cli.api.on('GET', /^\/v1\/pets/, { status: 200, body: '[]' });
    expect(await run(['pets', 'list'])).toMatchObject({ exitCode: 0, stdout: 'id\tname\tcategoryId\tstatus\n' });
    expect(await run(['pets', 'list', '-o', 'json'])).toMatchObject({ exitCode: 0, stdout: '[]\n' });
    expect(await run(['pets', 'list', '-o', 'ndjson'])).toMatchObject({ exitCode: 0, stdout: '' });
    expect(await run(['pets', 'list', '-o', 'csv'])).toMatchObject({ exitCode: 0, stdout: 'id,name,categoryId,status\n' });
    const tty = await run(['pets', 'list'], { stdoutTTY: true, env: { NO_COLOR: '1' } });
    expect(tty.exitCode).toBe(0);
    expect(tty.stdout).toBe('ID  NAME  CATEGORY ID  STATUS\n');
  });

  it('escapes control characters from the server in table output', async () => {
    cli.api.on('GET', /^\/v1\/pets/, { status: 200, body: '[{"id":1,"name":"a\\tb\\u001b[31mc","categoryId":2}]' });
    const r = await run(['pets', 'list']);
    expect(r.stdout).toBe('id\tname\tcategoryId\tstatus\n1\ta\\tb\\x1b[31mc\t2\t\n');
    const tty = await run(['pets', 'list'], { stdoutTTY: true, env: { NO_COLOR: '1' } });
    expect(tty.stdout).not.toContain('\u001b');
  });

  it.each([
    [['--limit', '0'], '--limit "0": must be a whole number from 1 to 100'],
    [['--limit', '101'], '--limit "101": must be a whole number from 1 to 100'],
    [['--limit', '2.5'], '--limit'],
    [['--limit', 'ten'], '--limit'],
    [['--status', 'lost'], '--status "lost": must be one of available, pending, sold'],
    [['-o', 'yaml'], '--output "yaml": must be one of table, json, ndjson, csv'],
    [['--json', '-o', 'csv'], '--json conflicts with --output csv'],
  ])('rejects %j with exit 2 before sending', async (flags, message) => {
    const r = await run(['pets', 'list', ...flags]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stdout).toBe('');
    expect(cli.api.requests).toHaveLength(0);
  });

  it('rejects unknown flags and extra arguments with exit 2', async () => {
    const unknown = await run(['pets', 'list', '--colour']);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain("unknown option '--colour'");
    const extra = await run(['pets', 'list', 'extra']);
    expect(extra.exitCode).toBe(2);
    expect(cli.api.requests).toHaveLength(0);
  });

  it('reports a body that is not a list of pets as malformed (exit 1)', async () => {
    cli.api.on('GET', /^\/v1\/pets/, { status: 200, body: '{"pets":[]}' });
    const r = await run(['pets', 'list']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toBe('error: malformed response: expected a list of pets, got JSON of the wrong shape (HTTP 200)\n');
    expect(r.stdout).toBe('');
  });

  it('reports an HTML 502 page as such, without a stack trace (exit 1)', async () => {
    cli.api.on('GET', /^\/v1\/pets/, { status: 502, body: '<html><body>Bad Gateway</body></html>', headers: { 'content-type': 'text/html' } });
    const r = await run(['pets', 'list', '--max-retries', '0']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('HTTP 502 with a non-JSON body (text/html)');
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.stderr).not.toContain('SyntaxError');
  });

  it('shows the server message, code and status on 401 with the login hint (exit 4)', async () => {
    cli.api.on('GET', /^\/v1\/pets/, { status: 401, body: { code: 'unauthorized', message: 'Invalid API key', status: 401 } });
    await run(['auth', 'login', '--no-verify'], { input: MOCK_KEY, env: { PETSTORE_API_KEY: undefined } });
    const r = await run(['pets', 'list'], { env: { PETSTORE_API_KEY: undefined } });
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toBe('error: authentication failed: Invalid API key (unauthorized, HTTP 401); run: petstore auth login --env production\n');
  });

  it('a 401 for the key of PETSTORE_API_KEY says to fix or unset it: logging in again would change nothing', async () => {
    cli.api.on('GET', /^\/v1\/pets/, { status: 401, body: { code: 'unauthorized', message: 'Invalid API key', status: 401 } });
    const r = await run(['pets', 'list']);
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toBe(
      'error: authentication failed: Invalid API key (unauthorized, HTTP 401); PETSTORE_API_KEY is set and overrides the stored key: fix or unset it\n',
    );
  });

  it('also prints the error as one JSON object on stderr with -o json', async () => {
    cli.api.on('GET', /^\/v1\/pets/, { status: 401, body: { code: 'unauthorized', message: 'Invalid API key', status: 401 } });
    await run(['auth', 'login', '--no-verify'], { input: MOCK_KEY, env: { PETSTORE_API_KEY: undefined } });
    const r = await run(['pets', 'list', '-o', 'json'], { env: { PETSTORE_API_KEY: undefined } });
    expect(r.exitCode).toBe(4);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[1]!)).toEqual({
      error: {
        code: 'unauthorized',
        message: 'authentication failed: Invalid API key (unauthorized, HTTP 401)',
        status: 401,
        exitCode: 4,
        hint: 'petstore auth login --env production',
      },
    });
  });

  it('exits 4 without sending anything when there is no key', async () => {
    const r = await run(['pets', 'list'], { env: { PETSTORE_API_KEY: undefined } });
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toContain('no API key for environment "production"');
    expect(r.stderr).toContain('petstore auth login --env production');
    expect(cli.api.requests).toHaveLength(0);
  });

  it('exits 2 naming the exact env set command when the environment has no base URL', async () => {
    const r = await run(['pets', 'list', '--env', 'staging'], { env: { PETSTORE_BASE_URL: undefined } });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('petstore env set staging https://<host>/v1');
    expect(cli.api.requests).toHaveLength(0);
  });

  it('exits 7 when the connection fails', async () => {
    cli.api.fail('GET', /^\/v1\/pets/, Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }));
    const r = await run(['pets', 'list', '--max-retries', '0']);
    expect(r.exitCode).toBe(7);
    expect(r.stderr).toMatch(/^error: /);
  });
});

describe('pets add', () => {
  it('posts name, exact categoryId and status, and prints the created pet', async () => {
    cli.api.on('POST', '/v1/pets', (req) => {
      const sent = req.body ?? '';
      return { status: 201, body: `{"id":${BIG},${sent.slice(1)}` };
    });
    const r = await run(['pets', 'add', '--name', 'Rex', '--category-id', '9223372036854775807', '--status', 'pending', '-o', 'json']);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    const req = cli.api.requests[0]!;
    expect(req.body).toBe('{"name":"Rex","categoryId":9223372036854775807,"status":"pending"}');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers.authorization).toBe(`Bearer ${MOCK_KEY}`);
    expect(r.stdout).toBe(`{"id":${BIG},"name":"Rex","categoryId":9223372036854775807,"status":"pending"}\n`);
  });

  it('leaves status out when not given and prints one table row', async () => {
    cli.api.on('POST', '/v1/pets', { status: 201, body: '{"id":7,"name":"Rex","categoryId":1}' });
    const r = await run(['pets', 'add', '--name', 'Rex', '--category-id', '1']);
    expect(cli.api.requests[0]!.body).toBe('{"name":"Rex","categoryId":1}');
    expect(r.stdout).toBe('id\tname\tcategoryId\tstatus\n7\tRex\t1\t\n');
  });

  it.each([
    [['--category-id', '1'], 'missing --name: "pets add" needs --name and --category-id (or --file)'],
    [['--name', 'Rex'], 'missing --category-id: "pets add" needs --name and --category-id (or --file)'],
    [['--name', 'Rex', '--category-id', '1', '--dry-run'], '--dry-run only applies with --file'],
    [['--name', ' ', '--category-id', '1'], 'invalid --name: must be a non-empty name'],
    [['--name', 'Rex', '--category-id', '9223372036854775808'], 'invalid --category-id "9223372036854775808": must be a whole number from'],
    [['--name', 'Rex', '--category-id', '1.5'], 'invalid --category-id'],
    [['--name', 'Rex', '--category-id', '1', '--status', 'gone'], 'invalid --status "gone": must be one of available, pending, sold'],
  ])('rejects %j with exit 2 before sending', async (flags, message) => {
    const r = await run(['pets', 'add', ...flags]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(message);
    expect(cli.api.requests).toHaveLength(0);
  });

  it('maps a 400 from the server to exit 2 with its message', async () => {
    cli.api.on('POST', '/v1/pets', { status: 400, body: { code: 'invalid_body', message: 'name is too long', status: 400 } });
    const r = await run(['pets', 'add', '--name', 'x'.repeat(300), '--category-id', '1']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toBe('error: the server rejected the request: name is too long (invalid_body, HTTP 400)\n');
  });

  it('reports a created pet without an id as malformed (exit 1)', async () => {
    cli.api.on('POST', '/v1/pets', { status: 201, body: '{"name":"Rex","categoryId":1}' });
    const r = await run(['pets', 'add', '--name', 'Rex', '--category-id', '1']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('malformed response');
  });
});

describe('pets get', () => {
  it('requests exactly /pets/<id> for an id above 2^53 and prints it exactly, with the deprecation warning', async () => {
    cli.api.on('GET', `/v1/pets/${BIG}`, { status: 200, body: `{"id":${BIG},"name":"Rex","categoryId":${BIG}}` });
    const r = await run(['pets', 'get', BIG, '-o', 'json']);
    expect(r.exitCode).toBe(0);
    expect(cli.api.requests[0]!.path).toBe(`/v1/pets/${BIG}`);
    expect(r.stdout).toBe(`{"id":${BIG},"name":"Rex","categoryId":${BIG}}\n`);
    expect(r.stderr).toBe(
      'warning: "pets get" uses GET /pets/{petId}, which is deprecated and will be removed on 5 December 2030; use "petstore pets list --status <status>" instead\n',
    );
  });

  it('prints the id exactly in table, csv and ndjson', async () => {
    cli.api.on('GET', `/v1/pets/${BIG}`, { status: 200, body: `{"id":${BIG},"name":"Rex","categoryId":1}` });
    for (const format of ['table', 'csv', 'ndjson']) {
      const r = await run(['pets', 'get', BIG, '-o', format, '-q']);
      expect(r.stdout).toContain(BIG);
    }
  });

  it("prints one deprecation line, with the removal date of the server's Sunset header when it sends one", async () => {
    cli.api.on('GET', '/v1/pets/1', {
      status: 200,
      body: '{"id":1,"name":"Rex","categoryId":1}',
      headers: { deprecation: '@1767225600', sunset: 'Fri, 01 Mar 2030 00:00:00 GMT' },
    });
    const r = await run(['pets', 'get', '1']);
    expect(r.stderr).toBe(
      'warning: "pets get" uses GET /pets/{petId}, which is deprecated and will be removed on 1 March 2030; use "petstore pets list --status <status>" instead\n',
    );
  });

  it("keeps the interface's date when the Sunset header is not a date", async () => {
    cli.api.on('GET', '/v1/pets/1', { status: 200, body: '{"id":1,"name":"Rex","categoryId":1}', headers: { sunset: 'soon\u001b[2J' } });
    const r = await run(['pets', 'get', '1']);
    expect(r.stderr.split('\n').filter(Boolean)).toEqual([expect.stringContaining('will be removed on 5 December 2030;')]);
  });

  it('hides the warning with --quiet', async () => {
    cli.api.on('GET', '/v1/pets/1', { status: 200, body: '{"id":1,"name":"Rex","categoryId":1}', headers: { deprecation: 'true' } });
    const r = await run(['pets', 'get', '1', '--quiet']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('id\tname\tcategoryId\tstatus\n1\tRex\t1\t\n');
  });

  it('exits 5 on 404 with the server message', async () => {
    cli.api.on('GET', '/v1/pets/9', { status: 404, body: { code: 'not_found', message: 'Pet 9 not found', status: 404 } });
    const r = await run(['pets', 'get', '9', '-q']);
    expect(r.exitCode).toBe(5);
    expect(r.stderr).toBe('error: not found: Pet 9 not found (not_found, HTTP 404)\n');
  });

  it.each([
    ['9223372036854775808', 'invalid pet id "9223372036854775808": must be a whole number from -9223372036854775808 to 9223372036854775807'],
    ['abc', 'invalid pet id "abc"'],
    ['007', 'invalid pet id "007": must be a whole number without leading zeros'],
    ['1e3', 'invalid pet id "1e3"'],
  ])('rejects %s with exit 2 before sending', async (id, message) => {
    const r = await run(['pets', 'get', id]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(message);
    expect(cli.api.requests).toHaveLength(0);
  });

  it('rejects a missing id with exit 2', async () => {
    const r = await run(['pets', 'get']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("missing required argument 'petId'");
  });
});

describe('pets get with several ids', () => {
  const pet = (id: string, name: string) => ({ status: 200, body: `{"id":${id},"name":"${name}","categoryId":1,"status":"available"}` });
  const missing = (id: string) => ({ status: 404, body: { code: 'not_found', message: `Pet ${id} not found`, status: 404 } });

  it('prints the pets found in the order given (one table, a JSON array, NDJSON lines) and one line per missing id; exit 5', async () => {
    cli.api.on('GET', `/v1/pets/${BIG}`, pet(BIG, 'Rex'));
    cli.api.on('GET', '/v1/pets/2', pet('2', 'Tom'));
    cli.api.on('GET', '/v1/pets/7', missing('7'));
    cli.api.on('GET', '/v1/pets/8', missing('8'));
    const args = ['pets', 'get', '7', BIG, '8', '2'];
    const table = await run(args);
    expect(table.exitCode).toBe(5);
    expect(table.stdout).toBe(`id\tname\tcategoryId\tstatus\n${BIG}\tRex\t1\tavailable\n2\tTom\t1\tavailable\n`);
    expect(table.stderr.split('\n').filter(Boolean)).toEqual([
      expect.stringMatching(/^warning: "pets get" uses GET \/pets\/\{petId\}, which is deprecated/),
      'error: pet 8: not found: Pet 8 not found (not_found, HTTP 404)',
      'error: pet 7: not found: Pet 7 not found (not_found, HTTP 404)',
    ]);
    const json = await run([...args, '-o', 'json', '-q']);
    expect(json.stdout).toBe(`[{"id":${BIG},"name":"Rex","categoryId":1,"status":"available"},{"id":2,"name":"Tom","categoryId":1,"status":"available"}]\n`);
    expect(json.exitCode).toBe(5);
    const nd = await run([...args, '-o', 'ndjson', '-q']);
    expect(nd.stdout).toBe(`{"id":${BIG},"name":"Rex","categoryId":1,"status":"available"}\n{"id":2,"name":"Tom","categoryId":1,"status":"available"}\n`);
  });

  it('all found: exit 0, each id requested once', async () => {
    cli.api.on('GET', '/v1/pets/1', pet('1', 'A'));
    cli.api.on('GET', '/v1/pets/2', pet('2', 'B'));
    const r = await run(['pets', 'get', '1', '2', '-o', 'csv', '-q']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('id,name,categoryId,status\n1,A,1,available\n2,B,1,available\n');
    expect(cli.api.requests.map((q) => q.path).sort()).toEqual(['/v1/pets/1', '/v1/pets/2']);
  });

  it('no pet found: exit 5 and an empty array for -o json', async () => {
    cli.api.on('GET', '/v1/pets/7', missing('7'));
    cli.api.on('GET', '/v1/pets/8', missing('8'));
    const r = await run(['pets', 'get', '7', '8', '--json', '-q']);
    expect(r.exitCode).toBe(5);
    expect(r.stdout).toBe('[]\n');
  });

  it('another failure and no missing id: its exit code (a 5xx is 1), the found pets still printed', async () => {
    cli.api.on('GET', '/v1/pets/1', pet('1', 'A'));
    cli.api.on('GET', '/v1/pets/3', { status: 400, body: { code: 'bad_request', message: 'no', status: 400 } });
    const r = await run(['pets', 'get', '1', '3', '-q']);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('id\tname\tcategoryId\tstatus\n1\tA\t1\tavailable\n');
    expect(r.stderr).toMatch(/^error: pet 3: .*no/);
  });

  it('a missing id beside another failure: exit 5, both reported', async () => {
    cli.api.on('GET', '/v1/pets/3', { status: 400, body: { code: 'bad_request', message: 'no', status: 400 } });
    cli.api.on('GET', '/v1/pets/7', missing('7'));
    const r = await run(['pets', 'get', '3', '7', '-q']);
    expect(r.exitCode).toBe(5);
    expect(r.stderr.split('\n').filter(Boolean)).toEqual([
      expect.stringMatching(/^error: pet 3: /),
      'error: pet 7: not found: Pet 7 not found (not_found, HTTP 404)',
    ]);
  });

  it('checks every id before sending: one bad id is exit 2 and nothing is sent', async () => {
    const r = await run(['pets', 'get', '1', '2', 'x3']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('invalid pet id "x3"');
    expect(cli.api.requests).toHaveLength(0);
  });

  it('ten ids: printed in the order given, whatever order the answers come in', async () => {
    for (let i = 1; i <= 10; i++) cli.api.on('GET', `/v1/pets/${i}`, pet(String(i), `p${i}`));
    const r = await run(['pets', 'get', ...Array.from({ length: 10 }, (_, i) => String(i + 1)), '-o', 'ndjson', '-q']);
    expect(r.exitCode).toBe(0);
    expect(
      r.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l).id),
    ).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });
});

describe('pets add --help: the formats it lists are the ones --file takes', () => {
  const RECORDS: Record<string, string> = {
    json: '[{"name":"Rex","categoryId":1}]\n',
    ndjson: '{"name":"Rex","categoryId":1}\n',
    csv: 'name,categoryId\nRex,1\n',
  };

  it('every input format and every result format (-o with --file) it lists is accepted; the others are refused naming the same list', async () => {
    const help = (await run(['pets', 'add', '--help'])).stdout.replace(/\s+/g, ' ');
    const inputs = /--format <format> format of --file: (\S+)/.exec(help)?.[1]?.split('|');
    const fileLine = /--file <file> create one pet per record of a (\S+) file/.exec(help)?.[1]?.split('|');
    const results = /\(with --file: (\S+)\)/.exec(help)?.[1]?.split('|');
    expect(inputs).toEqual(['json', 'ndjson', 'csv']);
    expect(fileLine).toEqual(inputs);
    expect(results).toEqual(['ndjson', 'table']);

    const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'petstore-formats-'));
    try {
      for (const format of inputs!) {
        const file = join(dir, `pets.${format}`);
        writeFileSync(file, RECORDS[format]!);
        const r = await run(['pets', 'add', '--file', file, '--format', format, '--dry-run']);
        expect(r.exitCode, `${format}: ${r.stderr}`).toBe(0);
      }
      const file = join(dir, 'pets.ndjson');
      for (const output of results!) {
        const r = await run(['pets', 'add', '--file', file, '--dry-run', '-o', output]);
        expect(r.exitCode, `-o ${output}: ${r.stderr}`).toBe(0);
      }
      for (const output of ['json', 'csv']) {
        const r = await run(['pets', 'add', '--file', file, '--dry-run', '-o', output]);
        expect(r.exitCode).toBe(2);
        expect(r.stderr.split('\n')[0]).toBe(`error: invalid --output "${output}": must be one of ${results!.join(', ')}`);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
