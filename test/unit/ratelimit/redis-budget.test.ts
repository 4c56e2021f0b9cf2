// src/ratelimit/redis-budget.ts against a real redis-server (test/helpers/redis.ts), with a clock
// whose sleeps jump: two budgets on one key stand for two processes of a fleet.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RateLimitedError } from '../../../src/errors/errors.js';
import { RedisBudget } from '../../../src/ratelimit/redis-budget.js';
import type { Clock } from '../../../src/time/clock.js';
import { hasRedisServer, startRedis, type RedisHandle } from '../../helpers/redis.js';
import { missingTool } from '../../helpers/tools.js';

/** Time moves only when someone sleeps: by the length of the sleep. */
class JumpClock implements Clock {
  constructor(public t = Date.UTC(2030, 0, 1, 12, 0, 0)) {}
  now(): number {
    return this.t;
  }
  async sleep(ms: number): Promise<void> {
    this.t += Math.max(0, ms);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe.skipIf(missingTool('redis-server', hasRedisServer()))('RedisBudget (real redis-server)', () => {
  let redis: RedisHandle;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(() => redis?.stop());

  let n = 0;
  function budgets(clock: Clock, count = 2, extra: Partial<ConstructorParameters<typeof RedisBudget>[0]> = {}) {
    const keyHash = `test:${++n}`;
    const warnings: string[] = [];
    const list = Array.from(
      { length: count },
      () => new RedisBudget({ url: redis.url, keyHash, clock, probeMs: 5000, warn: (l) => warnings.push(l), ...extra }),
    );
    return { list, warnings };
  }

  it('one probe opens the window; the budget is the server limit, counted across processes; the next window opens after the reset', async () => {
    const clock = new JumpClock();
    const {
      list: [a, b],
      warnings,
    } = budgets(clock);
    try {
      await a!.take(); // no window known: A's request goes alone
      let bDone = false;
      const bTake = b!.take().then(() => {
        bDone = true;
      });
      await new Promise((r) => setTimeout(r, 30));
      expect(bDone).toBe(false); // B waits for the window A's answer tells
      const resetAt = clock.now() + 10_000;
      await a!.learn({ limit: 3, remaining: 2, resetAt, seenAt: clock.now() });
      await bTake; // slot 2 of 3
      await a!.take(); // slot 3 of 3
      const before = clock.now();
      await b!.take(); // over the limit: waits for the reset, then opens the next window alone
      expect(clock.now()).toBeGreaterThanOrEqual(resetAt + 250);
      expect(before).toBeLessThan(resetAt);
      expect(warnings).toEqual([]);
    } finally {
      await a!.close();
      await b!.close();
    }
  });

  it('counts what the server had already counted in a window (limit - remaining)', async () => {
    const clock = new JumpClock();
    const {
      list: [a, b],
    } = budgets(clock);
    try {
      await a!.take();
      const resetAt = clock.now() + 10_000;
      await a!.learn({ limit: 5, remaining: 2, resetAt, seenAt: clock.now() }); // 3 used (others outside the fleet)
      await b!.take();
      await a!.take(); // 5 of 5
      const before = clock.now();
      await b!.take();
      expect(clock.now()).toBeGreaterThan(before); // the 6th waited for the reset
    } finally {
      await a!.close();
      await b!.close();
    }
  });

  it('a wait for the reset longer than --max-wait is exit 6 (RateLimitedError)', async () => {
    const clock = new JumpClock();
    const {
      list: [a],
    } = budgets(clock, 1, { maxWaitMs: 1000 });
    try {
      await a!.take();
      await a!.learn({ limit: 1, remaining: 0, resetAt: clock.now() + 60_000, seenAt: clock.now() });
      await expect(a!.take()).rejects.toBeInstanceOf(RateLimitedError);
    } finally {
      await a!.close();
    }
  });

  it('Redis gone mid-run: one warning, then every take resolves at once', async () => {
    const own = await startRedis();
    const clock = new JumpClock();
    const warnings: string[] = [];
    const a = new RedisBudget({ url: own.url, keyHash: 'gone', clock, probeMs: 5000, warn: (l) => warnings.push(l) });
    try {
      await a.take();
      await a.learn({ limit: 100, remaining: 99, resetAt: clock.now() + 10_000, seenAt: clock.now() });
      await own.stop(true);
      for (let i = 0; i < 5; i++) await a.take();
      await a.learn({ limit: 100, remaining: 90, resetAt: clock.now() + 10_000, seenAt: clock.now() });
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(
        /^warning: shared limiter redis:\/\/127\.0\.0\.1:\d+\/0 unavailable \(.+\); pacing from this process's own view of the quota$/,
      );
    } finally {
      await a.close();
      await own.stop();
    }
  });
});
