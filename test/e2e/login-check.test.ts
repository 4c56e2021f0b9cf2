// `auth login` counts as logged in only when the check request gets the documented answer: a JSON list of
// pets. A captive portal's HTML, JSON of another shape or a 401 store nothing and exit 4.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
import { E2E_KEY, e2e, fakeServer } from '../helpers/e2e.js';

const tmp = tempDir('petstore-login-');
afterAll(() => tmp.cleanup());

let n = 0;
async function loginAgainst(status: number, type: string, body: string) {
  const server = await fakeServer((_req, res) => {
    res.writeHead(status, { 'content-type': type });
    res.end(body);
  });
  const configDir = join(tmp.dir, `cfg-${++n}`);
  try {
    const r = await runCli(['auth', 'login'], { env: { PETSTORE_BASE_URL: server.baseUrl }, configDir, input: `${E2E_KEY}\n` });
    const config = join(configDir, 'config.json');
    return { ...r, stored: existsSync(config) ? readFileSync(config, 'utf8') : '', baseUrl: server.baseUrl, hits: server.hits() };
  } finally {
    await server.close();
  }
}

describe('auth login checks that it is talking to the pet store', () => {
  it.each([
    [
      'an HTML page with 200 (a captive portal, a wrong URL)',
      200,
      'text/html',
      '<!doctype html><title>Sign in to Wi-Fi</title>',
      /a non-JSON body \(text\/html\)/,
    ],
    ['JSON of another shape with 200', 200, 'application/json', '{"status":"ok","version":"2.1"}', /JSON of the wrong shape/],
    ['an empty 200', 200, 'application/json', '', /an empty body/],
  ])('%s: one line naming the URL, exit 4, nothing stored', async (_label, status, type, body, what) => {
    const r = await loginAgainst(status, type, body);
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toMatch(new RegExp(`^error: this does not look like the pet store API at ${r.baseUrl.replaceAll('.', '\\.')}: GET /pets answered `));
    expect(r.stderr).toMatch(what);
    expect(r.stderr).toContain('nothing was stored');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).not.toContain(E2E_KEY);
    expect(r.stored).not.toContain(E2E_KEY);
    expect(r.hits).toBe(1);
  });

  it('a 401: exit 4, nothing stored; the sandbox: logged in', async () => {
    const denied = await loginAgainst(401, 'application/json', '{"code":"unauthorized","message":"invalid API key","status":401}');
    expect(denied.exitCode).toBe(4);
    expect(denied.stored).not.toContain(E2E_KEY);
    const t = await e2e();
    try {
      const r = await t.cli(['auth', 'login'], { key: null, input: `${E2E_KEY}\n` });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/^Logged in to /m);
    } finally {
      await t.close();
    }
  });
});
