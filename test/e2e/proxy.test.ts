import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliResult } from '../helpers/cli.js';
import { closedPortUrl, E2E_KEY, e2e, type E2E } from '../helpers/e2e.js';
import { missingTool } from '../helpers/tools.js';
import { startTestProxy, startTlsFront, type TestProxy, type TlsFront } from '../helpers/proxy.js';
import { haveOpenssl } from '../helpers/tls-cert.js';

// HTTPS_PROXY / HTTP_PROXY / NO_PROXY (docs/configuration.md, "Proxies"), through a local proxy that records what it was asked.
// The sandbox is plain http on loopback, which undici forwards (absolute URI); https goes through a CONNECT tunnel,
// tested with a TLS front (self-signed certificate trusted through NODE_EXTRA_CA_CERTS).

const PROXY_PASSWORD = 'pr0xyPASSWORDdistinct';

let t: E2E;
let proxy: TestProxy;
beforeAll(async () => {
  t = await e2e();
  t.sb.seed([{ name: 'Rex', categoryId: 1, status: 'available' }]);
  proxy = await startTestProxy();
});
afterAll(async () => {
  await proxy.close();
  await t.close();
});

function clean(r: CliResult): void {
  for (const secret of [E2E_KEY, PROXY_PASSWORD]) {
    expect(r.stdout).not.toContain(secret);
    expect(r.stderr).not.toContain(secret);
  }
}

const sandboxHost = () => `127.0.0.1:${t.sb.port}`;

describe('proxies from the environment', () => {
  it.each(['HTTP_PROXY', 'http_proxy'])('%s: the request goes through the proxy and succeeds', async (name) => {
    proxy.log.length = 0;
    const r = await t.cli(['pets', 'list', '-o', 'json'], { env: { [name]: proxy.url } });
    clean(r);
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveLength(1);
    expect(proxy.log.map((e) => [e.method, e.target])).toEqual([['GET', sandboxHost()]]);
  });

  it('a bulk run of 500 records (undici, a connection limit) goes through the proxy too: each created once', async () => {
    // Its own sandbox: the other tests count the pets of the shared one.
    const own = await e2e();
    try {
      proxy.log.length = 0;
      const file = join(own.dir, 'proxied.ndjson');
      writeFileSync(file, `${Array.from({ length: 500 }, (_, i) => JSON.stringify({ name: `proxied-${i + 1}`, categoryId: 1 })).join('\n')}\n`);
      const r = await own.cli(['--debug', 'pets', 'add', '--file', file, '--concurrency', '4', '--yes', '--results', join(own.dir, 'results.ndjson')], {
        env: { HTTP_PROXY: proxy.url },
      });
      clean(r);
      expect(r.exitCode).toBe(0);
      expect(r.stderr).toContain('debug: * HTTP client: undici (proxy settings from the environment, at most 4 connections)');
      expect(proxy.log.filter((e) => e.method === 'POST' && e.target === `127.0.0.1:${own.sb.port}`)).toHaveLength(500);
      const names = own.sb.pets().map((p) => p.name);
      expect(names).toHaveLength(500);
      expect(new Set(names).size).toBe(500);
    } finally {
      await own.close();
    }
  });

  it('NO_PROXY=127.0.0.1 bypasses the proxy (loopback is not exempt by default)', async () => {
    proxy.log.length = 0;
    for (const env of [
      { HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1' },
      { http_proxy: proxy.url, no_proxy: 'localhost,127.0.0.1' },
    ]) {
      const r = await t.cli(['pets', 'list'], { env });
      clean(r);
      expect(r.exitCode).toBe(0);
    }
    expect(proxy.log).toEqual([]);
  });

  it('credentials in the proxy URL are sent to the proxy and never printed, not even with --debug', async () => {
    const guarded = await startTestProxy({ credentials: `alice:${PROXY_PASSWORD}` });
    try {
      const url = `http://alice:${PROXY_PASSWORD}@127.0.0.1:${guarded.port}`;
      const r = await t.cli(['--debug', 'pets', 'list'], { env: { HTTP_PROXY: url } });
      clean(r);
      expect(r.exitCode).toBe(0);
      expect(guarded.log).toHaveLength(1);
      expect(guarded.log[0]?.refusedWith).toBeUndefined();
      expect(r.stderr).toContain(`debug: > (through proxy http://****@127.0.0.1:${guarded.port}, from HTTP_PROXY)`);
      expect(r.stderr).not.toContain('alice');

      const denied = await t.cli(['pets', 'list', '--max-retries', '0'], { env: { HTTP_PROXY: guarded.url } });
      clean(denied);
      expect(denied.exitCode).toBe(7);
      expect(denied.stderr).toBe(
        `error: proxy ${guarded.url} (from HTTP_PROXY) refused the request to ${sandboxHost()} (HTTP 407); ` +
          'it wants credentials: put them in HTTP_PROXY (http://user:password@host:port)\n',
      );
    } finally {
      await guarded.close();
    }
  });

  it('a proxy that is not there: exit 7 naming the proxy (not its credentials); a POST is reported as not sent', async () => {
    const closed = new URL(await closedPortUrl());
    const env = { HTTPS_PROXY: `http://alice:${PROXY_PASSWORD}@${closed.host}`, HTTP_PROXY: `http://alice:${PROXY_PASSWORD}@${closed.host}` };
    const get = await t.cli(['pets', 'list', '--max-retries', '0'], { env });
    clean(get);
    expect(get.exitCode).toBe(7);
    expect(get.stderr).toBe(`error: could not connect to proxy http://****@${closed.host} (from HTTP_PROXY): connection refused\n`);
    const traced = await t.cli(['--debug', 'pets', 'list', '--max-retries', '0'], { env });
    clean(traced);
    expect(traced.exitCode).toBe(7);
    expect(traced.stderr).toMatch(/caused by: .*ECONNREFUSED/);

    const before = t.sb.pets().length;
    const post = await t.cli(['pets', 'add', '--name', 'Via', '--category-id', '1', '--max-retries', '0'], { env });
    clean(post);
    expect(post.exitCode).toBe(7);
    expect(post.stderr).toBe(`error: could not connect to proxy http://****@${closed.host} (from HTTP_PROXY): connection refused\n`);
    expect(post.stderr).not.toContain('may or may not');
    expect(t.sb.pets()).toHaveLength(before);
  });

  it('a proxy URL that cannot be used is exit 2 naming the variable', async () => {
    const r = await t.cli(['pets', 'list'], { env: { https_proxy: `ftp://alice:${PROXY_PASSWORD}@proxy.invalid:2121` } });
    clean(r);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('invalid https_proxy "ftp://****@proxy.invalid:2121"');
  });
});

describe.skipIf(missingTool('openssl', haveOpenssl()))('https through a CONNECT tunnel', () => {
  let front: TlsFront;
  beforeAll(async () => {
    front = await startTlsFront(t.sb.port);
  });
  afterAll(() => front?.close());

  const httpsEnv = (extra: Record<string, string>) => ({ PETSTORE_BASE_URL: `${front.url}/v1`, NODE_EXTRA_CA_CERTS: front.caFile, ...extra });

  it('HTTPS_PROXY: the CLI tunnels with CONNECT host:port and the request succeeds', async () => {
    const direct = await t.cli(['pets', 'list'], { env: httpsEnv({}) });
    clean(direct);
    expect(direct.exitCode).toBe(0);

    proxy.log.length = 0;
    const r = await t.cli(['pets', 'list', '-o', 'json'], { env: httpsEnv({ HTTPS_PROXY: proxy.url }) });
    clean(r);
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveLength(1);
    expect(proxy.log.map((e) => [e.method, e.target])).toEqual([['CONNECT', `127.0.0.1:${front.port}`]]);
  });

  it('HTTP_PROXY alone also applies to https URLs; NO_PROXY bypasses it', async () => {
    proxy.log.length = 0;
    const r = await t.cli(['pets', 'list'], { env: httpsEnv({ HTTP_PROXY: proxy.url }) });
    clean(r);
    expect(r.exitCode).toBe(0);
    expect(proxy.log.map((e) => e.method)).toEqual(['CONNECT']);
    proxy.log.length = 0;
    const bypass = await t.cli(['pets', 'list'], { env: httpsEnv({ HTTPS_PROXY: proxy.url, NO_PROXY: '127.0.0.1' }) });
    clean(bypass);
    expect(bypass.exitCode).toBe(0);
    expect(proxy.log).toEqual([]);
  });

  it('a proxy that refuses the tunnel: exit 7 naming the proxy and the status; a POST is not sent', async () => {
    const refusing = await startTestProxy({ refuse: 403 });
    try {
      const before = t.sb.pets().length;
      const r = await t.cli(['pets', 'add', '--name', 'Blocked', '--category-id', '1'], { env: httpsEnv({ HTTPS_PROXY: refusing.url }) });
      clean(r);
      expect(r.exitCode).toBe(7);
      expect(r.stderr).toBe(`error: proxy ${refusing.url} (from HTTPS_PROXY) refused the request to 127.0.0.1:${front.port} (HTTP 403)\n`);
      expect(refusing.log.map((e) => e.method)).toEqual(['CONNECT']);
      expect(t.sb.pets()).toHaveLength(before);
    } finally {
      await refusing.close();
    }
  });
});
