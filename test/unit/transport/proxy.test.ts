import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TransportError } from '../../../src/transport/errors.js';
import { HttpTransport } from '../../../src/transport/exchange.js';
import { proxyFor, proxySecrets, proxySettingsFromEnv, redactProxyUrl, type ProxySettings } from '../../../src/transport/proxy.js';
import { UsageError } from '../../../src/errors/errors.js';
import { startSandbox, type SandboxHandle } from '../../../src/sandbox/server.js';
import { systemClock } from '../../../src/time/clock.js';
import { closedPortUrl } from '../../helpers/e2e.js';
import { startTestProxy, type TestProxy } from '../../helpers/proxy.js';

const KEY = 'sk_proxy_unit_DISTINCTIVE_5w5w';

describe('proxy settings from the injected environment', () => {
  it('no variable: no proxy (the plain agent)', () => {
    expect(proxySettingsFromEnv({})).toBeUndefined();
    expect(proxySettingsFromEnv({ NO_PROXY: 'example.com', HTTP_PROXY: '', https_proxy: '  ' })).toBeUndefined();
  });

  it('upper or lower case; lower case wins when both are set; empty counts as unset', () => {
    expect(proxySettingsFromEnv({ HTTPS_PROXY: 'http://up:1' })?.https).toEqual({ uri: 'http://up:1/', source: 'HTTPS_PROXY' });
    expect(proxySettingsFromEnv({ https_proxy: 'http://low:1' })?.https).toEqual({ uri: 'http://low:1/', source: 'https_proxy' });
    expect(proxySettingsFromEnv({ HTTPS_PROXY: 'http://up:1', https_proxy: 'http://low:1' })?.https?.source).toBe('https_proxy');
    expect(proxySettingsFromEnv({ HTTPS_PROXY: 'http://up:1', https_proxy: '' })?.https?.source).toBe('HTTPS_PROXY');
    const s = proxySettingsFromEnv({ HTTP_PROXY: 'http://p:1', NO_PROXY: 'a.example', no_proxy: 'b.example' });
    expect(s?.noProxy).toBe('b.example');
  });

  it("https URLs fall back to HTTP_PROXY (undici's rule); HTTPS_PROXY alone leaves http direct", () => {
    const onlyHttp = proxySettingsFromEnv({ HTTP_PROXY: 'http://p:1' });
    expect(onlyHttp?.https?.source).toBe('HTTP_PROXY');
    expect(proxyFor(onlyHttp, 'https://api.example.com/v1/pets')?.source).toBe('HTTP_PROXY');
    const onlyHttps = proxySettingsFromEnv({ HTTPS_PROXY: 'http://p:1' });
    expect(proxyFor(onlyHttps, 'http://127.0.0.1:8080/v1/pets')).toBeUndefined();
    expect(proxyFor(onlyHttps, 'https://api.example.com/v1/pets')?.source).toBe('HTTPS_PROXY');
  });

  it('a proxy without a scheme means http://', () => {
    expect(proxySettingsFromEnv({ HTTPS_PROXY: 'proxy.corp:3128' })?.https?.uri).toBe('http://proxy.corp:3128/');
  });

  it('a proxy URL that cannot be used is a usage error naming the variable, never its credentials', () => {
    const attempt = (env: Record<string, string>) => {
      try {
        proxySettingsFromEnv(env);
      } catch (error) {
        return error as UsageError;
      }
      throw new Error('expected a usage error');
    };
    const bad = attempt({ https_proxy: 'ftp://bob:hunter2secret@proxy:2121' });
    expect(bad).toBeInstanceOf(UsageError);
    expect(bad.message).toContain('https_proxy');
    expect(bad.message).toContain('ftp://****@proxy:2121');
    expect(bad.message).not.toContain('hunter2secret');
    const worse = attempt({ HTTP_PROXY: 'http://bob:hunter2secret@[bad' });
    expect(worse.message).toContain('HTTP_PROXY');
    expect(worse.message).not.toContain('hunter2secret');
  });

  it('redacts credentials for messages', () => {
    expect(redactProxyUrl('http://bob:s3cret@proxy.corp:3128/')).toBe('http://****@proxy.corp:3128');
    expect(redactProxyUrl('http://token@proxy.corp:3128')).toBe('http://****@proxy.corp:3128');
    expect(redactProxyUrl('http://proxy.corp:3128/')).toBe('http://proxy.corp:3128');
    const s = proxySettingsFromEnv({ HTTPS_PROXY: 'http://bob:s%40cret@proxy:1' });
    expect(proxySecrets(s).sort()).toEqual(['bob', 's%40cret', 's@cret']);
  });
});

describe('NO_PROXY matching (mirrors undici EnvHttpProxyAgent)', () => {
  const settings = (noProxy: string): ProxySettings => proxySettingsFromEnv({ HTTP_PROXY: 'http://p:1', NO_PROXY: noProxy })!;
  it.each([
    ['', 'http://127.0.0.1:4010/v1', true],
    ['127.0.0.1', 'http://127.0.0.1:4010/v1', false],
    ['localhost,127.0.0.1', 'http://localhost:4010/v1', false],
    ['example.com', 'https://api.example.com/v1', false],
    ['.example.com', 'https://example.com/v1', false],
    ['*.example.com', 'https://example.com/v1', true],
    ['*.example.com', 'https://api.example.com/v1', false],
    ['example.com', 'https://notexample.com/v1', true],
    ['example.com:8443', 'https://example.com/v1', true],
    ['example.com:443', 'https://example.com/v1', false],
    ['*', 'https://anything.example/v1', false],
    ['[::1]', 'http://[::1]:4010/v1', false],
    ['a.test b.test', 'https://b.test/v1', false],
  ])('NO_PROXY=%j, %s -> proxied %s', (noProxy, url, proxied) => {
    expect(proxyFor(settings(noProxy), url) !== undefined).toBe(proxied);
  });
});

describe('requests through a proxy (in process)', () => {
  let sb: SandboxHandle;
  let proxy: TestProxy;
  beforeAll(async () => {
    sb = await startSandbox({ keys: [KEY], perMinute: 100_000, perDay: 1_000_000 });
    proxy = await startTestProxy();
  });
  afterAll(async () => {
    await proxy.close();
    await sb.close();
  });

  function transport(env: Record<string, string>, timeoutMs = 5000) {
    const lines: string[] = [];
    const t = new HttpTransport({
      baseUrl: sb.baseUrl,
      apiKey: KEY,
      userAgent: 't',
      timeoutMs,
      clock: systemClock,
      proxy: proxySettingsFromEnv(env),
      debug: (l) => lines.push(l),
    });
    return { t, lines };
  }

  it('goes through the proxy named by the environment, and the trace says so', async () => {
    proxy.log.length = 0;
    const { t, lines } = transport({ HTTP_PROXY: proxy.url });
    try {
      expect((await t.once({ method: 'GET', path: '/pets' })).status).toBe(200);
    } finally {
      await t.close();
    }
    expect(proxy.log.map((e) => [e.method, e.target])).toEqual([['GET', `127.0.0.1:${sb.port}`]]);
    expect(lines).toContain(`> (through proxy ${proxy.url}, from HTTP_PROXY)`);
  });

  it('NO_PROXY bypasses it', async () => {
    proxy.log.length = 0;
    const { t, lines } = transport({ HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1' });
    try {
      expect((await t.once({ method: 'GET', path: '/pets' })).status).toBe(200);
    } finally {
      await t.close();
    }
    expect(proxy.log).toEqual([]);
    expect(lines.some((l) => l.includes('through proxy'))).toBe(false);
  });

  it('a proxy that is not there: a transport error naming the proxy, never its credentials', async () => {
    const closed = new URL(await closedPortUrl());
    const { t, lines } = transport({ https_proxy: `http://bob:hunter2secret@${closed.host}`, HTTP_PROXY: `http://bob:hunter2secret@${closed.host}` });
    let error: unknown;
    try {
      await t.once({ method: 'POST', path: '/pets', body: { name: 'Rex', categoryId: 1n } });
    } catch (e) {
      error = e;
    } finally {
      await t.close();
    }
    expect(error).toBeInstanceOf(TransportError);
    expect((error as TransportError).sent).toBe(false);
    expect((error as Error).message).toBe(`could not connect to proxy http://****@${closed.host} (from HTTP_PROXY): connection refused`);
    expect(lines.join('\n')).not.toContain('hunter2secret');
    expect(lines.join('\n')).not.toContain(KEY);
  });
});
