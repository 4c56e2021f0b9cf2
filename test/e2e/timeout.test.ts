import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliResult } from '../helpers/cli.js';
import { expectNoKey, e2e, fakeServer, type E2E } from '../helpers/e2e.js';

// --timeout SECONDS (docs/configuration.md, "Timeouts"): one deadline per request covering connect and the whole response.
// Bounds below are "within the timeout plus a generous margin" (process start-up included), never exact.

let t: E2E;
beforeAll(async () => {
  t = await e2e();
  t.sb.seed([{ name: 'Rex', categoryId: 1, status: 'available' }]);
});
afterAll(async () => {
  t.sb.setLatency(0);
  await t.close();
});

async function timed(run: () => Promise<CliResult>): Promise<CliResult & { ms: number }> {
  const started = Date.now();
  const r = await run();
  return { ...r, ms: Date.now() - started };
}

/** Waits until the sandbox has answered everything it got (slow answers arrive after the CLI gave up). */
async function settled(): Promise<void> {
  while (t.sb.stats().inFlight > 0) await new Promise((r) => setTimeout(r, 50));
}

describe('--timeout', () => {
  it('a GET with no answer in time: exit 7 naming the timeout, soon after it', async () => {
    // Well past the 1 s timeout, and short: settled() waits for the late answer before the next test.
    t.sb.setLatency(2500);
    try {
      const r = await timed(() => t.cli(['pets', 'list', '--timeout', '1', '--max-retries', '0']));
      expectNoKey(r);
      expect(r.exitCode).toBe(7);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(`error: request timed out after 1s (--timeout 1): GET ${t.sb.baseUrl}/pets\n`);
      expect(r.ms).toBeLessThan(1000 + 6000);
    } finally {
      t.sb.setLatency(0);
      await settled();
    }
  });

  // The sandbox does not record requests whose client left before the answer: a server that counts arrivals instead.
  // Each of the next three has a server of its own: they run at once.
  async function slowServer(ms: number) {
    const arrivals: string[] = [];
    const timers = new Set<NodeJS.Timeout>();
    const server = await fakeServer((req, res) => {
      arrivals.push(req.method ?? '');
      req.resume();
      const timer = setTimeout(() => {
        timers.delete(timer);
        if (!res.destroyed) res.writeHead(200, { 'content-type': 'application/json' }).end('[]');
      }, ms);
      timers.add(timer);
      res.on('close', () => {
        clearTimeout(timer);
        timers.delete(timer);
      });
    });
    return { ...server, arrivals };
  }

  it.concurrent('a GET that times out is retried (--max-retries), then still ends with exit 7', async () => {
    const slow = await slowServer(4000);
    try {
      // 3 attempts of 1 s plus backoff of at most 1 + 2 s.
      const r = await timed(() =>
        t.cli(['pets', 'list', '--timeout', '1', '--max-retries', '2'], { timeoutMs: 40_000, env: { PETSTORE_BASE_URL: slow.baseUrl } }),
      );
      expectNoKey(r);
      expect(r.exitCode).toBe(7);
      const lines = r.stderr.trim().split('\n');
      expect(lines).toHaveLength(3);
      expect(lines[0]).toMatch(/^request timed out after 1s \(--timeout 1\): GET \S+; retrying in \d+s \(attempt 1\/2\)$/);
      expect(lines[1]).toMatch(/^request timed out after 1s \(--timeout 1\): GET \S+; retrying in \d+s \(attempt 2\/2\)$/);
      expect(lines[2]).toBe(`error: request timed out after 1s (--timeout 1): GET ${slow.baseUrl}/pets`);
      expect(r.ms).toBeLessThan(3 * 1000 + 3000 + 8000);
      expect(slow.arrivals).toEqual(['GET', 'GET', 'GET']);
    } finally {
      await slow.close();
    }
  }, 60_000);

  it.concurrent('a POST that times out is never repeated: outcome unknown, exit 7', async () => {
    const slow = await slowServer(3000);
    try {
      const r = await timed(() =>
        t.cli(['pets', 'add', '--name', 'Slow', '--category-id', '4', '--timeout', '1'], { env: { PETSTORE_BASE_URL: slow.baseUrl } }),
      );
      expectNoKey(r);
      expect(r.exitCode).toBe(7);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(
        'error: outcome unknown for pet {"name":"Slow","categoryId":4}: the request may or may not have been processed (no response before the timeout: ' +
          `request timed out after 1s (--timeout 1): POST ${slow.baseUrl}/pets); check with "petstore pets list" before retrying\n`,
      );
      expect(r.ms).toBeLessThan(1000 + 6000);
      // Default --max-retries 3, yet exactly one POST.
      await new Promise((r) => setTimeout(r, 500));
      expect(slow.arrivals).toEqual(['POST']);
    } finally {
      await slow.close();
    }
  });

  it.concurrent('covers the whole response: a body that stalls halfway times out too', async () => {
    const stall = await fakeServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('[{"id":1,"name":"Re');
      // ... and the rest never comes.
    });
    try {
      const r = await timed(() => t.cli(['pets', 'list', '--timeout', '1.5', '--max-retries', '0'], { env: { PETSTORE_BASE_URL: stall.baseUrl } }));
      expectNoKey(r);
      expect(r.exitCode).toBe(7);
      expect(r.stderr).toBe(`error: request timed out after 1.5s (--timeout 1.5): GET ${stall.baseUrl}/pets\n`);
      expect(r.ms).toBeLessThan(1500 + 6000);
    } finally {
      await stall.close();
    }
  });

  it('a slow answer within the timeout is fine', async () => {
    t.sb.setLatency(300);
    try {
      const r = await t.cli(['pets', 'list', '--timeout', '5']);
      expectNoKey(r);
      expect(r.exitCode).toBe(0);
    } finally {
      t.sb.setLatency(0);
    }
  });

  it.each([
    ['0', 'invalid --timeout "0": must be a number of at least 0.001'],
    ['abc', 'invalid --timeout "abc"'],
    ['-3', 'invalid --timeout "-3"'],
    ['', 'invalid --timeout ""'],
  ])('--timeout %j is a usage error (exit 2) before any request', async (value, message) => {
    t.sb.clearRequests();
    const r = await t.cli(['pets', 'list', '--timeout', value]);
    expectNoKey(r);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(message);
    expect(t.sb.requests()).toHaveLength(0);
  });
});
