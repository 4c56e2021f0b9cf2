import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliResult } from '../helpers/cli.js';
import { closedPortUrl, E2E_KEY, expectNoKey, e2e, type E2E } from '../helpers/e2e.js';

// --debug / PETSTORE_DEBUG=1: the request trace on stderr (docs/configuration.md, "Debugging"). The key never appears in full.

let t: E2E;
beforeAll(async () => {
  t = await e2e();
  t.sb.seed([{ name: 'Rex', categoryId: 1, status: 'available' }]);
});
afterAll(() => t.close());

const MASKED = `Bearer ****${E2E_KEY.slice(-4)}`;

const debugLines = (r: CliResult) => r.stderr.split('\n').filter((l) => l.startsWith('debug: '));

describe('--debug', () => {
  it('traces method, URL, masked Authorization, status, duration and rate-limit headers; data stays on stdout', async () => {
    const r = await t.cli(['--debug', 'pets', 'list', '--limit', '1', '-o', 'json']);
    expectNoKey(r);
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([{ id: 1, name: 'Rex', categoryId: 1, status: 'available' }]);
    const lines = debugLines(r);
    expect(lines).toContain(`debug: > GET ${t.sb.baseUrl}/pets?limit=1`);
    expect(lines).toContain(`debug: > authorization: ${MASKED}`);
    expect(lines).toContain('debug: > user-agent: petstore-cli/0.1.0');
    expect(lines.some((l) => /^debug: < 200 OK \(\d+ ms\)$/.test(l))).toBe(true);
    expect(lines).toContain('debug: < x-ratelimit-limit: 100000');
    expect(lines.some((l) => /^debug: < x-ratelimit-remaining: \d+$/.test(l))).toBe(true);
    expect(lines.some((l) => /^debug: < x-ratelimit-reset: \d+$/.test(l))).toBe(true);
    expect(lines.some((l) => l.startsWith('debug: < content-type: application/json'))).toBe(true);
    expect(lines.some((l) => l.startsWith('debug: < [{"id":1,"name":"Rex"'))).toBe(true);
    // Nothing but debug lines on stderr for a successful command.
    expect(
      r.stderr
        .trim()
        .split('\n')
        .every((l) => l.startsWith('debug: ')),
    ).toBe(true);
  });

  it('PETSTORE_DEBUG=1 does the same; PETSTORE_DEBUG=0 and no flag print no trace', async () => {
    const on = await t.cli(['pets', 'list', '--limit', '1'], { env: { PETSTORE_DEBUG: '1' } });
    expectNoKey(on);
    expect(on.exitCode).toBe(0);
    expect(debugLines(on)).toContain(`debug: > authorization: ${MASKED}`);
    for (const env of [{ PETSTORE_DEBUG: '0' }, {}]) {
      const off = await t.cli(['pets', 'list', '--limit', '1'], { env });
      expectNoKey(off);
      expect(off.exitCode).toBe(0);
      expect(off.stderr).toBe('');
    }
  });

  it('shows the Deprecation and Sunset headers of pets get', async () => {
    const r = await t.cli(['--debug', 'pets', 'get', '1']);
    expectNoKey(r);
    expect(r.exitCode).toBe(0);
    expect(debugLines(r)).toContain('debug: < deprecation: true');
    expect(debugLines(r)).toContain('debug: < sunset: Thu, 05 Dec 2030 00:00:00 GMT');
  });

  it('truncates bodies after 500 characters', async () => {
    const body = `{"name":"Long","categoryId":7,"status":"available"${' '.repeat(600)}}`;
    const file = join(t.dir, 'long.json');
    writeFileSync(file, body);
    const r = await t.cli(['--debug', 'api', '/pets', '--input', file]);
    expectNoKey(r);
    expect(r.exitCode).toBe(0);
    expect(debugLines(r)).toContain(`debug: > ${body.slice(0, 500)}... (${body.length - 500} more characters)`);
    expect(debugLines(r).some((l) => /^debug: < 201 Created \(\d+ ms\)$/.test(l))).toBe(true);
  });

  it('shows retry decisions: a 503 retried after backoff, a 429 retried after Retry-After', async () => {
    t.sb.failNext({ status: 503, count: 1 });
    const r = await t.cli(['--debug', 'pets', 'list', '--limit', '1']);
    expectNoKey(r);
    expect(r.exitCode).toBe(0);
    const lines = debugLines(r);
    expect(lines.filter((l) => l.startsWith('debug: > GET '))).toHaveLength(2);
    expect(lines.some((l) => /^debug: < 503 Service Unavailable/.test(l))).toBe(true);
    expect(lines.some((l) => /^debug: wait \(server, \d+ ms\): server error \(HTTP 503\); retrying in \d+s \(attempt 1\/3\)$/.test(l))).toBe(true);

    t.sb.failNext({ status: 429, code: 'rate_limited', retryAfter: 1, count: 1 });
    const limited = await t.cli(['--debug', '--quiet', 'pets', 'list', '--limit', '1']);
    expectNoKey(limited);
    expect(limited.exitCode).toBe(0);
    const l2 = debugLines(limited);
    expect(l2).toContain('debug: < retry-after: 1');
    expect(l2.some((l) => /^debug: 429 on GET \/pets; gate closed until /.test(l))).toBe(true);
    expect(l2.some((l) => /^debug: wait \(rate_limited, \d+ ms\): rate limited; retrying in \d+s \(attempt 1\/3\)$/.test(l))).toBe(true);
    // --quiet silenced the announcement itself; only the trace remains.
    expect(
      limited.stderr
        .trim()
        .split('\n')
        .every((l) => l.startsWith('debug: ')),
    ).toBe(true);
  });

  it('stack traces only with --debug', async () => {
    const closed = await closedPortUrl();
    const plain = await t.cli(['pets', 'list', '--max-retries', '0'], { env: { PETSTORE_BASE_URL: closed } });
    expectNoKey(plain);
    expect(plain.exitCode).toBe(7);
    expect(plain.stderr).toBe(`error: could not connect to ${new URL(closed).host}: connection refused\n`);
    const traced = await t.cli(['--debug', 'pets', 'list', '--max-retries', '0'], { env: { PETSTORE_BASE_URL: closed } });
    expectNoKey(traced);
    expect(traced.exitCode).toBe(7);
    expect(traced.stderr).toContain(`error: could not connect to ${new URL(closed).host}: connection refused\n`);
    expect(traced.stderr).toMatch(/\n\s+at /);
    expect(traced.stderr).toMatch(/caused by: .*ECONNREFUSED/);
    expect(debugLines(traced).some((l) => /^debug: < failed after \d+ ms: could not connect/.test(l))).toBe(true);
  });

  it('auth login --debug masks the key it verifies and never prints it', async () => {
    const r = await t.cli(['--debug', 'auth', 'login', '--env', 'staging'], {
      key: null,
      input: `${E2E_KEY}\n`,
      env: { PETSTORE_BASE_URL: t.sb.baseUrl },
    });
    expectNoKey(r);
    expect(r.exitCode).toBe(0);
    expect(debugLines(r)).toContain(`debug: > authorization: ${MASKED}`);
    const status = await t.cli(['--debug', 'auth', 'status', '--env', 'staging', '-o', 'json'], { key: null });
    expectNoKey(status);
    expect(status.exitCode).toBe(0);
  });
});
