// --query (issue #34, item 5): a JMESPath expression applied to the JSON value before any format shows
// it, on every command that prints JSON; a broken one is exit 2 naming the column, with nothing sent.
import { describe, expect, it } from 'vitest';
import { mockedCli } from '../../helpers/mock-api.js';

const cli = mockedCli();
const run = cli.run;

const BIG = '9007199254740993'; // 2^53 + 1: a Number would print ...992
const PETS = `[{"id":${BIG},"name":"Rex","categoryId":1,"status":"available"},{"id":2,"name":"Tom","categoryId":${BIG},"status":"sold"},{"id":3,"name":"Max","categoryId":2,"status":"available"}]`;
const QUOTA = { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '59', 'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 30) };
const AVAILABLE = "[?status=='available'].name";

describe('--query on pets list', () => {
  it('prints the names selected: one per line in a table (no header), an array in json, lines in ndjson', async () => {
    cli.api.on('GET', '/v1/pets', { status: 200, body: PETS });
    expect((await run(['pets', 'list', '--query', AVAILABLE])).stdout).toBe('Rex\nMax\n');
    expect((await run(['pets', 'list', '--query', AVAILABLE, '-o', 'json'])).stdout).toBe('["Rex","Max"]\n');
    expect((await run(['pets', 'list', '--query', AVAILABLE, '-o', 'ndjson'])).stdout).toBe('"Rex"\n"Max"\n');
    const tty = await run(['pets', 'list', '--query', AVAILABLE, '-o', 'json'], { stdoutTTY: true, env: { NO_COLOR: '1' } });
    expect(tty.stdout).toBe('[\n  "Rex",\n  "Max"\n]\n');
  });

  it('objects become rows with their keys as columns, in table and csv; int64s above 2^53 stay exact', async () => {
    cli.api.on('GET', '/v1/pets', { status: 200, body: PETS });
    const q = '[].{id: id, cat: categoryId}';
    expect((await run(['pets', 'list', '--query', q, '-o', 'csv'])).stdout).toBe(`id,cat\n${BIG},1\n2,${BIG}\n3,2\n`);
    expect((await run(['pets', 'list', '--query', q])).stdout).toBe(`id\tcat\n${BIG}\t1\n2\t${BIG}\n3\t2\n`);
    expect((await run(['pets', 'list', '--query', q, '--no-headers'])).stdout).toBe(`${BIG}\t1\n2\t${BIG}\n3\t2\n`);
    const table = await run(['pets', 'list', '--query', q], { stdoutTTY: true, env: { NO_COLOR: '1' } });
    expect(table.stdout).toBe(`ID                CAT\n${BIG}  1\n2                 ${BIG}\n3                 2\n`);
    expect((await run(['pets', 'list', '--query', `[?id > \`2\`].id`, '-o', 'json'])).stdout).toBe(`[${BIG},3]\n`);
    expect((await run(['pets', 'list', '--query', 'max_by(@, &id).id'])).stdout).toBe(`${BIG}\n`);
    expect((await run(['pets', 'list', '--query', 'length(@)', '-o', 'json'])).stdout).toBe('3\n');
    expect((await run(['pets', 'list', '--query', '[0]', '-o', 'csv'])).stdout).toBe(`id,name,categoryId,status\n${BIG},Rex,1,available\n`);
  });

  it('a query that fails on the data (wrong arity) is exit 2', async () => {
    cli.api.on('GET', '/v1/pets', { status: 200, body: PETS });
    const r = await run(['pets', 'list', '--query', 'length(@, @)']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toBe('error: --query "length(@, @)" failed on the data: Invalid arity: length() takes 1 argument but received 2\n');
  });
});

describe('--query on the other commands that print JSON', () => {
  it('pets get, pets add, quota, auth status, env list, env show and api', async () => {
    cli.api.on('GET', '/v1/pets/2', { status: 200, body: JSON.parse(PETS.replace(BIG, '1'))[1] });
    cli.api.on('POST', '/v1/pets', { status: 201, body: `{"id":${BIG},"name":"Rex","categoryId":1}` });
    cli.api.on('GET', /^\/v1\/pets(\?.*)?$/, { status: 200, body: PETS, headers: QUOTA });
    expect((await run(['pets', 'get', '2', '--query', 'name', '-q'])).stdout).toBe('Tom\n');
    expect((await run(['pets', 'get', '2', '2', '--query', '[].name', '-o', 'json', '-q'])).stdout).toBe('["Tom","Tom"]\n');
    expect((await run(['pets', 'add', '--name', 'Rex', '--category-id', '1', '--query', 'id'])).stdout).toBe(`${BIG}\n`);
    expect((await run(['quota', '--query', '{limit: limit, remaining: remaining}', '-o', 'json'])).stdout).toBe('{"limit":60,"remaining":59}\n');
    expect((await run(['auth', 'status', '--query', 'server'])).stdout).toBe('accepted\n');
    expect((await run(['env', 'list', '--query', '[].name', '-o', 'json'])).stdout).toBe('["production","staging"]\n');
    expect((await run(['env', 'show', '--query', 'name'])).stdout).toBe('production\n');
    expect((await run(['api', '/pets', '--query', "[?status=='sold'].id"])).stdout).toBe(`[2]\n`);
    expect((await run(['api', '/pets?limit=1', '--query', '[0].id'])).stdout).toBe(`${BIG}\n`);
  });

  it('api: a response that is not JSON cannot be queried (exit 1)', async () => {
    cli.api.on('GET', '/v1/text', { status: 200, body: 'plain', headers: { 'content-type': 'text/plain' } });
    const r = await run(['api', '/text', '--query', 'a']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('--query needs a JSON response');
  });

  it('pets add --file refuses --query (its results are a stream of lines), nothing sent', async () => {
    const r = await run(['pets', 'add', '--file', 'pets.csv', '--query', 'id']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('--query cannot be combined with --file');
  });
});

describe('a broken --query', () => {
  it.each([
    ["[?status=='available'", 22, 'expected Rbracket, got: EOF'],
    ['a.b c', 5, 'unexpected token type: UnquotedIdentifier, value: c'],
    ['[].name | nosuch(@)', 11, 'Unknown function: nosuch()'],
    ['[?a == #]', 8, 'unknown character: #'],
    ['a.b..c', 5, ''],
  ])('%s: exit 2 naming column %i, before anything is sent, in every command', async (query, column, message) => {
    for (const args of [
      ['pets', 'list'],
      ['pets', 'get', '1'],
      ['pets', 'add', '--name', 'R', '--category-id', '1'],
      ['quota'],
      ['auth', 'status'],
      ['env', 'list'],
      ['api', '/pets'],
    ]) {
      const r = await run([...args, '--query', query]);
      expect(r.exitCode, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(
        new RegExp(`^error: invalid --query ".*" at column ${column}: .*${message.replace(/[[\]().?*]/g, '\\$&')}.*; run: petstore help formatting\n$`),
      );
    }
    expect(cli.api.requests).toEqual([]);
  });

  it('with -o json the error is also JSON on stderr', async () => {
    const r = await run(['pets', 'list', '--query', 'a.b c', '-o', 'json']);
    expect(r.exitCode).toBe(2);
    expect(JSON.parse(r.stderr.split('\n')[1]!)).toMatchObject({ error: { code: 'usage', exitCode: 2 } });
  });
});
