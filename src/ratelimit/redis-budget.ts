// --limiter redis://HOST:PORT/N: one exact budget per key, shared by every petstore process using that Redis
// (docs/rate-limits.md). Redis unreachable: one warning, and the local limiter paces alone.

import type { Redis } from 'ioredis';
import type { RateLimiterRedis } from 'rate-limiter-flexible';
import { InterruptedError, RateLimitedError } from '../errors/errors.js';
import { sleep, type Clock } from '../time/clock.js';
import { quotaWindow } from './fleet.js';
import { waitTooLong } from './give-up.js';
import type { Quota } from './quota.js';
import { FALLBACK_MARGIN_MS } from './server-clock.js';

export interface RedisBudgetOptions {
  url: string;
  /** The key's hash, never the key: rateStateKey('fleet', baseUrl, apiKey). */
  keyHash: string;
  clock: Clock;
  /** How long a lone first request may hold the right to open a window (request timeout + margin). */
  probeMs: number;
  warn: (line: string) => void;
  debug?: (line: string) => void;
  /** --max-wait: a wait for the window's reset longer than this ends with exit 6. */
  maxWaitMs?: number;
  /** How long after a reset instant nobody sends: the local limiter's margin. */
  marginMs?: () => number;
}

/** Connect and command timeout; the pause while another process opens a window. */
const TIMEOUT_MS = 2000;
const POLL_MS = 50;

type Window = Pick<Quota, 'limit' | 'resetAt'>;

/** Closes a connection; one that already ended is left alone (ioredis would start a timer that holds the process). */
function hangUp(client: Redis): void {
  if (client.status !== 'end') client.disconnect();
}

/** A budget shared by the fleet: take() before each request leaves, learn() its answer's quota. */
export class RedisBudget {
  readonly #o: RedisBudgetOptions;
  readonly #margin: () => number;
  readonly #prefix: string;
  readonly #holder = `${process.pid}.${Math.random().toString(36).slice(2, 10)}`;
  #client: Redis | undefined;
  #connecting: Promise<void> | undefined;
  /** Requests counted per window, in a key named by its reset. */
  #counter: RateLimiterRedis | undefined;
  #down = false;
  #window: Window | undefined;
  #counted = 0;
  /** This process holds `open`: its next answer tells the fleet the window. */
  #probing = false;
  /** When each slot held was taken (oldest first), and the longest recent round trip. */
  readonly #taken: number[] = [];
  #rttMs = 0;

  constructor(options: RedisBudgetOptions) {
    this.#o = options;
    this.#margin = options.marginMs ?? (() => FALLBACK_MARGIN_MS);
    this.#prefix = `petstore:limiter:${options.keyHash}`;
  }

  get counting(): boolean {
    return !this.#down;
  }

  /** Waits until the budget has room for one more request and counts it (at once when Redis is down). */
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
    // Nothing is sent this close to a reset: a request taken now reaches the server within about a round trip.
    const guard = Math.min(2000, Math.max(50, Math.ceil(this.#rttMs * 1.5)));
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
      await sleep(this.#o.clock, POLL_MS, signal);
      return false;
    }
    if ((await this.#adoptShared(w)) !== w) {
      await this.#client!.del(`${this.#prefix}:open`);
      return false;
    }
    this.#probing = true;
    this.#taken.push(this.#o.clock.now());
    return true;
  }

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
      throw waitTooLong('quota', now + waitMs, maxWaitMs, quota, quotaWindow(quota), false, now);
    }
    await sleep(this.#o.clock, waitMs, signal);
    return false;
  }

  async learn(quota: Quota | undefined): Promise<void> {
    if (this.#down) return;
    // Answers may come out of order: the oldest slot's age is a fair (upper) estimate.
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
    const have = (await this.#counter!.get(String(seen.resetAt / 1000)))?.consumedPoints ?? 0;
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

  async #connect(): Promise<void> {
    this.#connecting ??= (async () => {
      const [ioredis, rlf] = await Promise.all([import('ioredis'), import('rate-limiter-flexible')]);
      // Both are CommonJS: bundled (dist/), only `default` (their module.exports) is sure to be there.
      const Redis = (typeof ioredis.Redis === 'function' ? ioredis.Redis : ioredis.default) as typeof ioredis.Redis;
      const RateLimiterRedis = rlf.RateLimiterRedis ?? (rlf as unknown as { default: typeof rlf }).default.RateLimiterRedis;
      const client = new Redis(this.#o.url, {
        lazyConnect: true,
        // Our own connect timeout (below): ioredis's outlives a refused connection and holds the process.
        // One attempt, no reconnects, no queue: a Redis that goes away switches the budget off.
        connectTimeout: 0,
        commandTimeout: TIMEOUT_MS,
        retryStrategy: () => null,
        maxRetriesPerRequest: 0,
        enableOfflineQueue: false,
        enableAutoPipelining: false,
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
      const timeout = AbortSignal.timeout(TIMEOUT_MS); // its timer never holds the process
      try {
        await Promise.race([
          client.connect(),
          new Promise((_, reject) => timeout.addEventListener('abort', () => reject(new Error(`no connection within ${TIMEOUT_MS / 1000}s`)))),
        ]);
      } catch (error) {
        hangUp(client);
        // The 'error' before "Connection is closed." says why (ECONNREFUSED...).
        throw lastError ?? error;
      }
      this.#client = client;
      // No points limit: the count is compared with the window's limit here (consume() never rejects over it).
      const points = Number.MAX_SAFE_INTEGER;
      this.#counter = new RateLimiterRedis({ storeClient: client, keyPrefix: `${this.#prefix}:sent`, points, duration: 60, rejectIfRedisNotReady: true });
    })();
    await this.#connecting;
  }

  async #consume(w: Window, points: number): Promise<number> {
    const customDuration = Math.max(1, Math.ceil((w.resetAt - this.#o.clock.now()) / 1000) + 60);
    return (await this.#counter!.consume(String(w.resetAt / 1000), points, { customDuration })).consumedPoints;
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
    // The URL without its password.
    const u = URL.canParse(this.#o.url) ? new URL(this.#o.url) : undefined;
    const address = u ? `${u.protocol}//${u.hostname}:${u.port || '6379'}${u.pathname.length > 1 ? u.pathname : ''}` : 'the --limiter URL';
    this.#o.warn(`warning: shared limiter ${address} unavailable (${why}); pacing from this process's own view of the quota`);
  }
}
