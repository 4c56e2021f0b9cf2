import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { E2E_KEY, expectNoKey, e2e, fakeServer, type E2E } from '../helpers/e2e.js';

const BIG = '9007199254740993'; // 2^53 + 1: a Number would print ...992

let t: E2E;
beforeAll(async () => {
  t = await e2e();
  t.sb.seed([{ name: 'Rex', categoryId: 1n, status: 'available' }]);
});
afterAll(() => t.close());
beforeEach(() => t.sb.clearRequests());

describe('petstore api (built CLI against the sandbox)', () => {
  it('GET /pets: prints the body as received, sends the bearer key, exit 0', async () => {
    const r = await t.cli(['api', '/pets?limit=5']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^\[\{"id":\d+,"name":"Rex","categoryId":1,"status":"available"\}/);
    const [req] = t.sb.requests();
    expect(req).toMatchObject({ method: 'GET', path: '/v1/pets', query: { limit: '5' }, status: 200 });
    expect(req!.headers.authorization).toBe(`Bearer ${E2E_KEY}`);
    expectNoKey(r);
  });

  it('POST with -d keeps int64 digits exact, and the pet reads back exactly', async () => {
    const created = await t.cli(['api', '-X', 'POST', '/pets', '-d', `{"name":"Big","categoryId":${BIG}}`]);
    expect(created.exitCode, created.stderr).toBe(0);
    expect(created.stdout).toContain(`"categoryId":${BIG}`);
    expect(t.sb.requests()[0]!.body).toBe(`{"name":"Big","categoryId":${BIG}}`);
    const id = /"id":(\d+)/.exec(created.stdout)![1]!;
    const read = await t.cli(['api', `/pets/${id}`]);
    expect(read.exitCode, read.stderr).toBe(0);
    expect(read.stdout).toContain(`"categoryId":${BIG}`);
    expect(t.sb.pets().find((p) => String(p.id) === id)?.categoryId).toBe(BigInt(BIG));
    expectNoKey(created);
    expectNoKey(read);
  });

  it('--input - reads the body from stdin; POST is implied by a body', async () => {
    const r = await t.cli(['api', '/pets', '--input', '-'], { input: `{"name":"Piped","categoryId":${BIG},"status":"sold"}` });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(t.sb.requests()[0]).toMatchObject({ method: 'POST', status: 201 });
    expect(r.stdout).toContain(`"categoryId":${BIG}`);
  });

  it('--input FILE', async () => {
    const file = join(t.dir, 'pet.json');
    writeFileSync(file, `{"name":"Filed","categoryId":3}\n`);
    const r = await t.cli(['api', '/pets', '--input', file]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(t.sb.requests()[0]!.body).toBe(`{"name":"Filed","categoryId":3}\n`);
  });

  it('/store/orders (501): the Error body on stdout, one error line on stderr, exit 1', async () => {
    const r = await t.cli(['api', '/store/orders']);
    expect(r.exitCode, r.stderr).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 501 });
    expect(r.stderr).toMatch(/^error: server error: .*HTTP 501\)\n$/);
    expectNoKey(r);
  });

  it('--include: status line and response headers on stderr, then the error line', async () => {
    const r = await t.cli(['api', '/store/orders', '--include']);
    expect(r.exitCode, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/^HTTP 501 Not Implemented\n/);
    expect(r.stderr).toMatch(/\nx-ratelimit-limit: \d+\n/);
    expect(r.stderr).toMatch(/\n\nerror: server error: /);
    expect(r.stderr.toLowerCase()).not.toContain('authorization');
    expectNoKey(r);
  });

  it('a wrong key: the 401 body is printed and the exit code is 4', async () => {
    const r = await t.cli(['api', '/pets'], { key: 'sk_wrong_key_0000000000' });
    expect(r.exitCode, r.stderr).toBe(4);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 401 });
    expect(r.stderr).toMatch(/^error: authentication failed: /);
    expect(r.stderr).not.toContain('sk_wrong_key_0000000000');
  });

  it('a full URL under the base URL is accepted', async () => {
    const r = await t.cli(['api', `${t.sb.baseUrl}/pets?limit=1`]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(t.sb.requests()[0]).toMatchObject({ path: '/v1/pets', query: { limit: '1' } });
  });

  it('never sends the key to another host or port: exit 2, nothing sent anywhere', async () => {
    const other = await fakeServer((_req, res) => res.end('{}'));
    try {
      for (const url of [`${other.baseUrl}/pets`, 'https://example.com/v1/pets', `${t.sb.url}/v2/pets`, '/../admin']) {
        const r = await t.cli(['api', url]);
        expect(r.exitCode, `${url}: ${r.stderr}`).toBe(2);
        expect(r.stdout).toBe('');
        expect(r.stderr).toMatch(/^error: refusing /);
        expectNoKey(r);
      }
      expect(other.hits()).toBe(0);
      expect(t.sb.requests()).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it('usage errors are found before anything is sent', async () => {
    for (const args of [
      ['/pets', '-X', 'FETCH'],
      ['/pets', '-d', '{"name":'],
      ['/pets', '-d', '{}', '--input', '-'],
      ['/pets', '-H', 'Authorization: Bearer x'],
    ]) {
      const r = await t.cli(['api', ...args]);
      expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(2);
    }
    expect(t.sb.requests()).toEqual([]);
  });

  it('without a key: exit 4, nothing sent', async () => {
    const r = await t.cli(['api', '/pets'], { key: null });
    expect(r.exitCode, r.stderr).toBe(4);
    expect(t.sb.requests()).toEqual([]);
  });
});
