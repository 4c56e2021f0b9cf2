import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEBUG_BODY_CHARS, HttpTransport, traceBody } from '../../../src/transport/exchange.js';
import { timerMs } from '../../../src/transport/exchange.js';
import { MAX_TIMER_MS } from '../../../src/time/clock.js';
import { proxySettingsFromEnv } from '../../../src/transport/proxy.js';
import { startSandbox, type SandboxHandle } from '../../../src/sandbox/server.js';
import { systemClock } from '../../../src/time/clock.js';
import { fakeServer } from '../../helpers/e2e.js';

const KEY = 'sk_trace_unit_DISTINCTIVE_7q7q';

let sb: SandboxHandle;
beforeAll(async () => {
  sb = await startSandbox({ keys: [KEY], perMinute: 100_000, perDay: 1_000_000 });
  sb.seed([{ name: 'Rex', categoryId: 1, status: 'available' }]);
});
afterAll(() => sb.close());

function transport(baseUrl: string, opts: { key?: string; timeoutMs?: number; bulk?: { connections: number }; env?: Record<string, string> } = {}) {
  const lines: string[] = [];
  const t = new HttpTransport({
    baseUrl,
    apiKey: opts.key ?? KEY,
    userAgent: 'petstore-cli/test',
    timeoutMs: opts.timeoutMs ?? 5000,
    clock: systemClock,
    debug: (l) => lines.push(l),
    ...(opts.bulk ? { bulk: opts.bulk } : {}),
    ...(opts.env ? { proxy: proxySettingsFromEnv(opts.env) } : {}),
  });
  return { t, lines, text: () => lines.join('\n') };
}

describe('the --debug trace of one exchange', () => {
  it('shows method, URL, headers with the key masked, status, duration and the rate-limit headers', async () => {
    const { t, lines, text } = transport(sb.baseUrl);
    try {
      const res = await t.once({ method: 'GET', path: '/pets', query: { limit: 1 } });
      expect(res.status).toBe(200);
    } finally {
      await t.close();
    }
    expect(lines[0]).toBe('* HTTP client: node:http (keep-alive)');
    expect(lines[1]).toBe(`> GET ${sb.baseUrl}/pets?limit=1`);
    expect(lines).toContain('> authorization: Bearer ****7q7q');
    expect(lines).toContain('> accept: application/json');
    expect(lines).toContain('> user-agent: petstore-cli/test');
    expect(lines.find((l) => l.startsWith('< 200'))).toMatch(/^< 200 OK \(\d+ ms\)$/);
    expect(lines).toContain('< x-ratelimit-limit: 100000');
    expect(lines.some((l) => /^< x-ratelimit-remaining: \d+$/.test(l))).toBe(true);
    expect(lines.some((l) => /^< x-ratelimit-reset: \d+$/.test(l))).toBe(true);
    expect(lines.some((l) => /^< content-type: application\/json/.test(l))).toBe(true);
    expect(lines.at(-1)).toMatch(/^< \[\{"id":1,"name":"Rex"/);
    expect(text()).not.toContain(KEY);
  });

  it('names the HTTP client once, before the first request: node:http, or undici for bulk or with proxy settings', async () => {
    // NO_PROXY exempts the sandbox: the proxy agent is in use, but sends straight to it.
    const env = { HTTP_PROXY: 'http://127.0.0.1:9', NO_PROXY: '127.0.0.1' };
    for (const [opts, engine] of [
      [{}, 'node:http (keep-alive)'],
      [{ bulk: { connections: 8 } }, 'undici (bulk, at most 8 connections)'],
      [{ env }, 'undici (proxy settings from the environment)'],
      [{ env, bulk: { connections: 4 } }, 'undici (proxy settings from the environment, at most 4 connections)'],
    ] as const) {
      const { t, lines } = transport(sb.baseUrl, opts);
      try {
        await t.once({ method: 'GET', path: '/pets', query: { limit: 1 } });
        await t.once({ method: 'GET', path: '/pets', query: { limit: 1 } });
      } finally {
        await t.close();
      }
      expect(lines.filter((l) => l.startsWith('* '))).toEqual([`* HTTP client: ${engine}`]);
      expect(lines[0]).toBe(`* HTTP client: ${engine}`);
    }
  });

  it('shows Deprecation and Sunset of the deprecated GET /pets/{petId}', async () => {
    const { t, lines } = transport(sb.baseUrl);
    try {
      await t.once({ method: 'GET', path: '/pets/1' });
    } finally {
      await t.close();
    }
    expect(lines).toContain('< deprecation: true');
    expect(lines.some((l) => l.startsWith('< sunset: ') && l.includes('2030'))).toBe(true);
  });

  it('shows the request body, cut after 500 characters', async () => {
    const { t, lines, text } = transport(sb.baseUrl);
    // A body over 500 characters the sandbox accepts: names stop at 200.
    const name = 'N'.repeat(200);
    try {
      await t.once({ method: 'POST', path: '/pets', body: { name, categoryId: 1n }, rawBody: `{"name":"${name}","categoryId":1${' '.repeat(400)}}` });
    } finally {
      await t.close();
    }
    const sent = `{"name":"${name}","categoryId":1${' '.repeat(400)}}`;
    expect(lines).toContain('> content-type: application/json');
    expect(lines).toContain(`> ${sent.slice(0, DEBUG_BODY_CHARS)}... (${sent.length - DEBUG_BODY_CHARS} more characters)`);
    expect(lines.find((l) => l.startsWith('< 201'))).toMatch(/^< 201 Created \(\d+ ms\)$/);
    expect(lines.some((l) => l.startsWith('< location: /v1/pets/'))).toBe(true);
    expect(text()).not.toContain(KEY);
  });

  it('a key shorter than 12 characters shows only ****', async () => {
    const short = 'abc123xyz';
    const { t, lines, text } = transport(sb.baseUrl, { key: short });
    try {
      const res = await t.once({ method: 'GET', path: '/pets' });
      expect(res.status).toBe(401);
    } finally {
      await t.close();
    }
    expect(lines).toContain('> authorization: Bearer ****');
    expect(lines.find((l) => l.startsWith('< 401'))).toMatch(/^< 401 Unauthorized \(\d+ ms\)$/);
    expect(lines.some((l) => l.startsWith('< www-authenticate: Bearer'))).toBe(true);
    expect(text()).not.toContain(short);
  });

  it('a server that echoes the key back never gets it printed; control characters are escaped', async () => {
    const echo = await fakeServer((req, res) => {
      res.writeHead(400, { 'content-type': 'application/json', 'retry-after': '7' });
      res.end(`{"code":"bad","message":"you sent ${req.headers.authorization}\u001b[31m","status":400}`);
    });
    const { t, lines, text } = transport(echo.baseUrl);
    try {
      await t.once({ method: 'GET', path: '/pets' });
    } finally {
      await t.close();
      await echo.close();
    }
    expect(text()).not.toContain(KEY);
    expect(text()).not.toContain('\u001b');
    expect(lines.at(-1)).toBe('< {"code":"bad","message":"you sent Bearer ****7q7q\\x1b[31m","status":400}');
    expect(lines).toContain('< retry-after: 7');
  });

  it('a failed exchange ends the trace with the reason', async () => {
    const stall = await fakeServer(() => {
      // never answers
    });
    const { t, lines } = transport(stall.baseUrl, { timeoutMs: 200 });
    try {
      await expect(t.once({ method: 'GET', path: '/pets' })).rejects.toMatchObject({ timedOut: true, sent: true });
    } finally {
      await t.close();
      await stall.close();
    }
    expect(lines.at(-1)).toMatch(/^< failed after \d+ ms: request timed out after 0.2s \(--timeout 0.2\): GET http:\/\/127\.0\.0\.1:\d+\/v1\/pets$/);
  });

  it('without a debug callback nothing is formatted', async () => {
    const t = new HttpTransport({ baseUrl: sb.baseUrl, apiKey: KEY, userAgent: 't', timeoutMs: 5000, clock: systemClock });
    try {
      expect((await t.once({ method: 'GET', path: '/pets' })).status).toBe(200);
    } finally {
      await t.close();
    }
  });
});

describe('traceBody', () => {
  it('keeps short bodies, cuts long ones and escapes control characters', () => {
    expect(traceBody('{"a":1}')).toBe('{"a":1}');
    expect(traceBody('x'.repeat(10), 4)).toBe('xxxx... (6 more characters)');
    expect(traceBody('a\nb\u0007')).toBe('a\\nb\\x07');
  });
});

describe('timerMs (the --timeout a timer accepts)', () => {
  it('rounds fractions of a millisecond up and caps what a Node timer cannot hold', () => {
    expect(timerMs(30_000)).toBe(30_000);
    expect(timerMs(1002.9999999999999)).toBe(1003);
    expect(timerMs(0.5)).toBe(1);
    expect(timerMs(4294968000)).toBe(MAX_TIMER_MS);
    expect(timerMs(Number.POSITIVE_INFINITY)).toBe(MAX_TIMER_MS);
  });
});
