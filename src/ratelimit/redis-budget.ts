// --limiter redis://HOST:PORT/N: one exact budget per key, shared by every petstore process that points at
// the same Redis or Valkey (a CI fleet on separate machines). It follows the server's own windows: the
// requests sent in the window an answer's X-RateLimit-Reset names are counted in one Redis counter
// (rate-limiter-flexible), and a request leaves only while the count is within X-RateLimit-Limit.
//   - A window is used until shortly before its reset (the guard), then nobody sends until the reset + margin.
//   - With no window known, one process wins `<prefix>:open` (SET NX) and sends alone; its answer publishes
//     the window (`<prefix>:window`), whose counter starts at what the server already counted in it.
//   - The prefix holds the key's hash (rateStateKey()), never the key.
//   - Redis unreachable: one warning, and the local limiter paces alone. Every command is bounded (2 s),
//     and the client never reconnects or retries.
// ioredis and rate-limiter-flexible load only on the first take().

import { FALLBACK_MARGIN_MS } from './server-clock.js';
import type { Redis } from 'ioredis';
import type { RateLimiterRedis } from 'rate-limiter-flexible';
import { InterruptedError, RateLimitedError } from '../errors/errors.js';
import { sleep, type Clock } from '../time/clock.js';
import type { FleetBudget } from './fleet-budget.js';
import { quotaWindow } from './fleet.js';
import { waitTooLong } from './give-up.js';
import type { Quota } from './quota.js';

export interface RedisBudgetOptions {
  /** redis:// or rediss:// URL; the path is the database number. */
  url: string;
  /** The key's hash, e.g. rateStateKey('fleet', baseUrl, apiKey). */
  keyHash: string;
  clock: Clock;
  /** How long a lone first request may hold the right to open a window (request timeout + margin). */
  probeMs: number;
  /** The one warning line when Redis cannot be used. */
  warn: (line: string) => void;
  debug?: (line: string) => void;
  /** Connect and per-command timeout. Default 2000 ms. */
  timeoutMs?: number;
  /** Look again this often while another process opens a window. Default 50 ms. */
  pollMs?: number;
  /** --max-wait: a wait for the window's reset longer than this ends with exit 6. */
  maxWaitMs?: number;
  /** How long after a reset instant nobody sends: the local limiter's margin (server-clock.ts). */
  marginMs?: () => number;
}

/** Nothing is sent this close to a window's reset (it could arrive in the next window): at least, and at most (#guardMs). */
const GUARD_MS = 50;
const MAX_GUARD_MS = 2000;

interface Window {
  limit: number;
  /** Epoch ms. */
  resetAt: number;
}

/** host:port of a limiter URL, for messages (never its password). */
function limiterAddress(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.hostname}:${u.port || '6379'}${u.pathname.length > 1 ? u.pathname : ''}`;
  } catch {
    return 'the --limiter URL';
  }
}

/** Closes a connection; one that already ended is left alone (ioredis would start a timer that holds the process). */
function hangUp(client: Redis): void {
  if (client.status !== 'end') client.disconnect();
}

export class RedisBudget implements FleetBudget {
  readonly #o: RedisBudgetOptions;
  readonly #margin: () => number;
  readonly #prefix: string;
  readonly #holder = `${process.pid}.${Math.random().toString(36).slice(2, 10)}`;
  #client: Redis | undefined;
  #connecting: Promise<void> | undefined;
  readonly #counters = new Map<number, RateLimiterRedis>();
  #RateLimiterRedis: typeof RateLimiterRedis | undefined;
  #down = false;
  #window: Window | undefined;
  /** The count this process last saw for #window. */
  #counted = 0;
  /** This process holds `open`: its next answer tells the fleet the window. */
  #probing = false;
  /** When each slot this process holds was taken (oldest first), for the round-trip time. */
  readonly #taken: number[] = [];
  /** The longest recent time from a slot taken to its answer, decaying (ms). */
  #rttMs = 0;

  constructor(options: RedisBudgetOptions) {
    this.#o = options;
    this.#margin = options.marginMs ?? (() => FALLBACK_MARGIN_MS);
    this.#prefix = `petstore:limiter:${options.keyHash}`;
  }

  get counting(): boolean {
    return !this.#down;
  }

  async take(signal?: AbortSignal): Promise<void> {
    if (this.#down) return;
    try {
      await this.#connect();
      while (!this.#down) {
        if (signal?.aborted) throw new InterruptedError();
        if (await this.#tryTake(signal)) return;
      }
    } catch (error) {
      if (error instanceof InterruptedError || error instanceof RateLimitedError) throw error;
      this.#fallBack(error);
    }
  }

  /** One look at the budget: true when a slot is this process's; false after a wait (look again). */
  async #tryTake(signal: AbortSignal | undefined): Promise<boolean> {
    const now = this.#o.clock.now();
    const guard = this.#guardMs();
    let w = this.#window;
    if (!w || now >= w.resetAt - guard) w = await this.#adoptShared(w);
    if (w && now < w.resetAt - guard) return this.#countOne(w, now, signal);
    const margin = this.#margin();
    if (w && now < w.resetAt + margin) {
      await sleep(this.#o.clock, w.resetAt + margin - now, signal);
      return false;
    }
    // No window known: one request of the fleet goes alone (it wins `open`), and its answer tells the others.
    const won = await this.#client!.set(`${this.#prefix}:open`, this.#holder, 'PX', Math.max(1000, Math.ceil(this.#o.probeMs)), 'NX');
    if (won !== 'OK') {
      await sleep(this.#o.clock, this.#o.pollMs ?? 50, signal);
      return false;
    }
    // The window's opener publishes it before it lets go of `open`: one published since this process looked is seen now.
    if ((await this.#adoptShared(w)) !== w) {
      await this.#client!.del(`${this.#prefix}:open`);
      return false;
    }
    this.#probing = true;
    this.#taken.push(this.#o.clock.now());
    return true;
  }

  /** The window other processes published, when it is newer than `w`. */
  async #adoptShared(w: Window | undefined): Promise<Window | undefined> {
    const shared = await this.#sharedWindow();
    if (!shared || (w && shared.resetAt <= w.resetAt)) return w;
    this.#window = shared;
    this.#counted = 0;
    return shared;
  }

  /** Counts one request in the window: true while within its limit; else waits for its reset (exit 6 beyond --max-wait). */
  async #countOne(w: Window, now: number, signal: AbortSignal | undefined): Promise<boolean> {
    const count = await this.#consume(w, 1);
    this.#counted = Math.max(this.#counted, count);
    if (count <= w.limit) {
      this.#taken.push(this.#o.clock.now());
      return true;
    }
    this.#o.debug?.(`shared limiter: ${w.limit}/${w.limit} used in the window ending ${new Date(w.resetAt).toISOString()}; waiting for it`);
    const waitMs = w.resetAt + this.#margin() - now;
    const maxWaitMs = this.#o.maxWaitMs;
    if (maxWaitMs !== undefined && waitMs > maxWaitMs) {
      const quota = { limit: w.limit, remaining: 0, resetAt: w.resetAt, seenAt: now };
      throw waitTooLong('quota', w.resetAt, waitMs, maxWaitMs, quota, quotaWindow(quota) === 'day' ? 'day' : 'minute', false, now);
    }
    await sleep(this.#o.clock, waitMs, signal);
    return false;
  }

  async learn(quota: Quota | undefined): Promise<void> {
    if (this.#down) return;
    // Answers may come back out of order: the oldest slot's age is a fair (upper) estimate.
    const takenAt = this.#taken.shift();
    if (takenAt !== undefined) this.#rttMs = Math.max(this.#o.clock.now() - takenAt, this.#rttMs * 0.9);
    const probing = this.#probing;
    this.#probing = false;
    try {
      if (quota && quota.limit > 0) await this.#countSeen(quota);
      if (probing) await this.#client!.del(`${this.#prefix}:open`);
    } catch (error) {
      this.#fallBack(error);
    }
  }

  /** Counts what the server has counted (the probe, anyone outside the fleet), then publishes a new window. */
  async #countSeen(quota: Quota): Promise<void> {
    const w = this.#window;
    const used = Math.min(quota.limit, quota.limit - quota.remaining);
    const newWindow = !w || quota.resetAt > w.resetAt || (quota.resetAt === w.resetAt && quota.limit !== w.limit);
    if (!newWindow && used <= this.#counted) return;
    const seen = { limit: quota.limit, resetAt: quota.resetAt };
    const have = await this.#count(seen);
    if (used > have) await this.#consume(seen, used - have);
    if (newWindow) {
      const shared = await this.#sharedWindow();
      if (!shared || seen.resetAt >= shared.resetAt) await this.#client!.set(`${this.#prefix}:window`, JSON.stringify(seen), 'PXAT', seen.resetAt + 60_000);
      this.#window = seen;
    }
    this.#counted = Math.max(this.#counted, used, have);
  }

  async close(): Promise<void> {
    const client = this.#client;
    this.#client = undefined;
    this.#down = true;
    if (!client) return;
    if (this.#probing) await client.del(`${this.#prefix}:open`).catch(() => {});
    hangUp(client);
  }

  /** How close to a reset a slot is still handed out: a request taken now reaches the server within about a round trip. */
  #guardMs(): number {
    return Math.min(MAX_GUARD_MS, Math.max(GUARD_MS, Math.ceil(this.#rttMs * 1.5)));
  }

  async #connect(): Promise<void> {
    this.#connecting ??= (async () => {
      const timeout = this.#o.timeoutMs ?? 2000;
      const [ioredis, rlf] = await Promise.all([import('ioredis'), import('rate-limiter-flexible')]);
      // Both are CommonJS: bundled (dist/), only `default` (their module.exports) is sure to be there.
      const Redis = (typeof ioredis.Redis === 'function' ? ioredis.Redis : ioredis.default) as typeof ioredis.Redis;
      this.#RateLimiterRedis = rlf.RateLimiterRedis ?? (rlf as unknown as { default: typeof rlf }).default.RateLimiterRedis;
      const client = new Redis(this.#o.url, {
        lazyConnect: true,
        // The connect timeout is ours (below): ioredis's own timer outlives a refused connection and
        // would keep the process alive for its full length.
        connectTimeout: 0,
        commandTimeout: timeout,
        // One connection attempt, no reconnects, no queue: a Redis that goes away fails the next
        // command at once and the budget switches off.
        retryStrategy: () => null,
        maxRetriesPerRequest: 0,
        enableOfflineQueue: false,
        enableAutoPipelining: false,
        // disconnect() waits this long for the socket to close (with a timer that keeps the process alive).
        disconnectTimeout: 200,
      });
      let lastError: Error | undefined;
      client.on('error', (error: Error) => {
        lastError = error;
        this.#o.debug?.(`shared limiter: ${error.message}`);
      });
      client.on('end', () => {
        if (this.#client === client) this.#fallBack(lastError ?? new Error('connection closed'));
      });
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          client.connect(),
          new Promise((_, reject) => {
            timer = setTimeout(() => reject(new Error(`no connection within ${timeout / 1000}s`)), timeout);
            timer.unref();
          }),
        ]);
      } catch (error) {
        hangUp(client);
        // ioredis rejects with "Connection is closed."; the 'error' before it says why (ECONNREFUSED...).
        throw lastError ?? error;
      } finally {
        clearTimeout(timer);
      }
      this.#client = client;
    })();
    await this.#connecting;
  }

  #counter(limit: number): RateLimiterRedis {
    let c = this.#counters.get(limit);
    if (!c) {
      const RL = this.#RateLimiterRedis!;
      c = new RL({ storeClient: this.#client, keyPrefix: `${this.#prefix}:sent`, points: limit, duration: 60, rejectIfRedisNotReady: true });
      this.#counters.set(limit, c);
    }
    return c;
  }

  /** Adds `points` to the window's count; returns the count. */
  async #consume(w: Window, points: number): Promise<number> {
    const customDuration = Math.max(1, Math.ceil((w.resetAt - this.#o.clock.now()) / 1000) + 60);
    try {
      const res = await this.#counter(w.limit).consume(String(w.resetAt / 1000), points, { customDuration });
      return res.consumedPoints;
    } catch (rejection) {
      // rate-limiter-flexible rejects with the RateLimiterRes when the count is over the limit, with an Error when Redis failed.
      if (rejection instanceof Error) throw rejection;
      return (rejection as { consumedPoints: number }).consumedPoints;
    }
  }

  async #count(w: Window): Promise<number> {
    const res = await this.#counter(w.limit).get(String(w.resetAt / 1000));
    return res?.consumedPoints ?? 0;
  }

  async #sharedWindow(): Promise<Window | undefined> {
    const text = await this.#client!.get(`${this.#prefix}:window`);
    if (!text) return undefined;
    try {
      const w = JSON.parse(text) as Partial<Window>;
      return Number.isSafeInteger(w.limit) && Number.isSafeInteger(w.resetAt) && w.limit! > 0 ? { limit: w.limit!, resetAt: w.resetAt! } : undefined;
    } catch {
      return undefined;
    }
  }

  #fallBack(error: unknown): void {
    if (this.#down) return;
    this.#down = true;
    const client = this.#client;
    this.#client = undefined;
    if (client) hangUp(client);
    const why = error instanceof Error ? error.message : String(error);
    this.#o.warn(`warning: shared limiter ${limiterAddress(this.#o.url)} unavailable (${why}); pacing from this process's own view of the quota`);
  }
}
