// proxyFor() names the proxy in messages and the --debug trace, while undici's EnvHttpProxyAgent
// does the routing (NO_PROXY included). This pins the two together: for each case a real request
// goes through createDispatcher() to a local API server, and whether the local proxy saw it must be
// what proxyFor() said. It fails if either side changes its NO_PROXY rules.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDispatcher } from '../../../src/transport/exchange.js';
import { proxyFor, proxySettingsFromEnv } from '../../../src/transport/proxy.js';
import { Exchange } from '../../../src/transport/undici-exchange.js';

let api: Server;
let proxy: Server;
let apiPort: number;
let proxyPort: number;
const proxied: string[] = [];

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

beforeAll(async () => {
  api = createServer((_req, res) => res.end('direct'));
  // A forward proxy for plain http: the request line carries the absolute URL.
  proxy = createServer((req, res) => {
    proxied.push(req.url ?? '');
    res.end('proxied');
  });
  apiPort = await listen(api);
  proxyPort = await listen(proxy);
});

afterAll(async () => {
  await Promise.all([api, proxy].map((s) => new Promise((r) => s.close(r))));
});

async function route(host: string, noProxy: string): Promise<'direct' | 'proxied'> {
  const settings = proxySettingsFromEnv({ HTTP_PROXY: `http://127.0.0.1:${proxyPort}`, NO_PROXY: noProxy });
  const dispatcher = await createDispatcher({ proxy: settings, timeoutMs: 5000 });
  try {
    const res = await new Exchange({ method: 'GET', headers: {} }).start(dispatcher, `http://${host}:${apiPort}`, '/v1/pets').done;
    return res.text as 'direct' | 'proxied';
  } finally {
    await dispatcher.close();
  }
}

describe('NO_PROXY: proxyFor() agrees with undici EnvHttpProxyAgent', () => {
  const cases = (): [string, string][] => [
    ['127.0.0.1', ''],
    ['127.0.0.1', '127.0.0.1'],
    ['127.0.0.1', `127.0.0.1:${apiPort}`],
    ['127.0.0.1', `127.0.0.1:${apiPort + 1}`],
    ['127.0.0.1', '*'],
    ['127.0.0.1', 'example.com, 127.0.0.1'],
    ['127.0.0.1', 'example.com 127.0.0.1'],
    ['127.0.0.1', 'localhost'],
    ['localhost', 'localhost'],
    ['localhost', '.localhost'],
    ['localhost', 'LOCALHOST'],
    ['localhost', `localhost:${apiPort}`],
    ['localhost', '127.0.0.1'],
    ['localhost', 'other.example'],
  ];

  it('every case routes where proxyFor says', async () => {
    for (const [host, noProxy] of cases()) {
      const settings = proxySettingsFromEnv({ HTTP_PROXY: `http://127.0.0.1:${proxyPort}`, NO_PROXY: noProxy });
      const said = proxyFor(settings, `http://${host}:${apiPort}/v1/pets`) ? 'proxied' : 'direct';
      expect(await route(host, noProxy), `${host} with NO_PROXY=${JSON.stringify(noProxy)}`).toBe(said);
    }
    // Both outcomes were exercised.
    expect(proxied.length).toBeGreaterThan(0);
    expect(proxied.length).toBeLessThan(cases().length);
  });
});
