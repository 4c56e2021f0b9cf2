// openapi/petstore.yaml is the contract: the sandbox serves it (GET /openapi.yaml, also from the installed
// package's dist/), the CLI's and the sandbox's rules come from it (src/contract/petstore.ts), and every
// exchange of the e2e suite is held against it (test/helpers/sandbox.ts).
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { LIST_LIMIT, PET_STATUSES } from '../../src/contract/petstore.js';
import { contractViolations } from '../helpers/contract.js';
import { E2E_KEY, e2e, type E2E } from '../helpers/e2e.js';
import type { RecordedRequest } from '../../src/sandbox/server.js';

let t: E2E;
beforeAll(async () => {
  t = await e2e();
});
afterAll(() => t.close());

describe('the OpenAPI description', () => {
  it('is served by the sandbox at /openapi.yaml, without a key, byte for byte the file', async () => {
    const r = await fetch(`${t.sb.url}/openapi.yaml`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/yaml/);
    expect(await r.text()).toBe(readFileSync(new URL('../../openapi/petstore.yaml', import.meta.url), 'utf8'));
    const banner = await t.cli(['sandbox', '--help']);
    expect(banner.exitCode).toBe(0);
  });

  it("the CLI's and the sandbox's limit and status rules are the description's", async () => {
    const doc = parse(readFileSync(new URL('../../openapi/petstore.yaml', import.meta.url), 'utf8'));
    const limit = doc.paths['/pets'].get.parameters.find((p: { name: string }) => p.name === 'limit').schema;
    expect(LIST_LIMIT).toEqual({ min: limit.minimum, max: limit.maximum, default: limit.default });
    expect([...PET_STATUSES]).toEqual(doc.components.schemas.PetStatus.enum);
    // Both sides refuse one past the maximum, and accept the maximum.
    const cli = await t.cli(['pets', 'list', '--limit', String(LIST_LIMIT.max + 1)]);
    expect(cli.exitCode).toBe(2);
    expect(cli.stderr).toContain(`${LIST_LIMIT.min} to ${LIST_LIMIT.max}`);
    const server = await fetch(`${t.sb.baseUrl}/pets?limit=${LIST_LIMIT.max + 1}`, { headers: { authorization: `Bearer ${E2E_KEY}` } });
    expect(server.status).toBe(400);
    expect((await t.cli(['pets', 'list', '--limit', String(LIST_LIMIT.max)])).exitCode).toBe(0);
  });

  it('the contract check notices a broken rule and names it', () => {
    const base: RecordedRequest = {
      seq: 1,
      time: 0,
      durationMs: 1,
      method: 'GET',
      url: '/v1/pets',
      path: '/v1/pets',
      query: {},
      headers: {},
      key: E2E_KEY,
      body: '',
      status: 200,
      responseHeaders: { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '59', 'x-ratelimit-reset': '1700000000' },
      responseBody: '[{"id":1,"name":"Rex","categoryId":1,"status":"available"}]',
      errorCode: undefined,
    };
    expect(contractViolations(base)).toEqual([]);
    expect(contractViolations({ ...base, responseBody: '[{"id":1,"name":"Rex","categoryId":1,"status":"adopted"}]' })).toEqual([
      expect.stringMatching(/^GET \/v1\/pets -> 200: #\/components\/schemas\/Pets \/0\/status must be equal to one of the allowed values/),
    ]);
    expect(contractViolations({ ...base, responseHeaders: {} })).toContain('GET /v1/pets -> 200: header X-RateLimit-Limit is required');
    expect(contractViolations({ ...base, status: 418 })).toEqual(['GET /v1/pets -> 418: status 418 is not in the description of /pets']);
    expect(contractViolations({ ...base, query: { limit: '101' } })).toEqual([
      'GET /v1/pets -> 200: request query limit=101 breaks {"minimum":1,"maximum":100}',
    ]);
  });
});
