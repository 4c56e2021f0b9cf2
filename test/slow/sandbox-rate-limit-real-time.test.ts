// Soak (npm run test:slow): the sandbox's rate limit and ban on the real clock, with real
// sleeps of Retry-After (~4 s). The rules themselves are tested on a fake clock in
// test/sandbox/rate-limit.test.ts; this checks that they hold in real time too.
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/server.js';
import { call, errorBody, sleep } from '../sandbox/helpers.js';

describe('sandbox rate limits (real time)', () => {
  it('a client that waits Retry-After after a 429 succeeds and is not banned; one that does not is', async () => {
    const sb = await startSandbox({ keys: ['k'], perMinute: 2, windowMs: 1000, banSeconds: 2 });
    try {
      await call(sb, 'GET', '/v1/pets');
      await call(sb, 'GET', '/v1/pets');
      const limited = await call(sb, 'GET', '/v1/pets');
      expect(limited.status).toBe(429);
      const wait = Number(limited.headers.get('retry-after'));
      expect(wait).toBeGreaterThanOrEqual(1);
      expect(wait).toBeLessThanOrEqual(2);
      await sleep(wait * 1000);
      const ok = await call(sb, 'GET', '/v1/pets');
      expect(ok.status).toBe(200);
      expect(sb.stats().bansIssued).toBe(0);

      // Now misbehave: exhaust and retry at once. The retry must reach the sandbox more than its grace
      // (100 ms) before the reset the 429 announced: a 429 that came too close to the reset (a loaded
      // machine, a window boundary) is waited out, and the window used up again.
      let r = await call(sb, 'GET', '/v1/pets');
      for (let tries = 0; r.status !== 429 || Number(r.headers.get('x-ratelimit-reset')) * 1000 - Date.now() < 400; tries++) {
        expect(tries, 'no 429 with 400 ms left before its reset').toBeLessThan(10);
        if (r.status === 429) await sleep(Number(r.headers.get('x-ratelimit-reset')) * 1000 - Date.now() + 50);
        r = await call(sb, 'GET', '/v1/pets');
      }
      const banned = await call(sb, 'GET', '/v1/pets');
      expect(banned.status).toBe(403);
      expect(errorBody(banned).code).toBe('key_banned');
      const banWait = Number(banned.headers.get('retry-after'));
      expect(banWait).toBeGreaterThanOrEqual(2);
      await sleep(banWait * 1000);
      expect((await call(sb, 'GET', '/v1/pets')).status).toBe(200);
    } finally {
      await sb.close();
    }
  }, 15_000);
});
