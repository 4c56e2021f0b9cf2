import { InterruptedError, RateLimitedError } from '../errors/errors.js';
import { announcedSleep, MAX_WINDOW_MS, systemClock, type Clock } from '../time/clock.js';
import { backoffDelay } from './backoff.js';
import { firstValue } from '../wire/headers.js';
import type { ApiRequest, ApiResponse } from '../transport/exchange.js';
import type { TransportError } from '../transport/errors.js';
import { RateLimiter } from '../ratelimit/limiter.js';
import type { Permit, WaitInfo } from '../ratelimit/permit.js';
import type { WaitAnnouncer, WaitNotice } from '../ratelimit/wait-announcer.js';
import { byLimit, type LimitWindow, limitResetPhrase, rateLimitGiveUp } from '../ratelimit/give-up.js';
import { wholeSeconds } from '../time/format.js';
import { OutcomeUnknownError } from './outcome.js';
import type { Quota } from '../ratelimit/quota.js';
import type { RedisBudget } from '../ratelimit/redis-budget.js';
import { isBan } from './error-body.js';
import { parseRetryAfter } from './retry-after.js';
import { retryVerdict, statusVerdict } from './retry-policy.js';

export interface ApiClientContext {
  envName: string;
  keySource?: 'PETSTORE_API_KEY' | 'config' | 'keyring' | undefined;
}

export interface Transport {
  readonly baseUrl: string;
  once(req: ApiRequest): Promise<ApiResponse>;
  close(): Promise<void>;
}

export interface ApiClientOptions {
  clock?: Clock;
  /** Aborts every wait (Ctrl-C). */
  signal?: AbortSignal;
  /** Retries after 429, 502-504 and connection errors. Default 3. */
  maxRetries?: number;
  /** A rate-limit wait longer than this ends with exit 6. Default 120 s. */
  maxWaitMs?: number;
  /** Default: one in memory for this client. */
  limiter?: RateLimiter;
  /** --limiter: the fleet's budget, taken once the limiter's permit is in hand. */
  fleet?: RedisBudget | undefined;
  random?: () => number;
  onWait?: WaitAnnouncer;
  debug?: (line: string) => void;
}

const seconds = (ms: number) => `${wholeSeconds(ms)}s`;

/** What one attempt came to; after a 429 or a ban the key's gate closes until gateUntil. */
interface Attempt {
  res?: ApiResponse;
  error?: unknown;
  gateUntil?: number | undefined;
  /** A 429's Retry-After longer than --max-wait (or not believable): give up at once. */
  tooLong?: { ms: number; value: string } | undefined;
}

/** The retry about to happen (1-based), and whether its rate-limit wait was announced. */
type RetryContext = { attempt: number; announced: boolean };

/** The retrying client under the API layer: every request passes the key's rate-limit gate. send() may run concurrently. */
export class ApiClient {
  #lastQuota: Quota | undefined;
  #requests = 0;
  readonly #o: ApiClientOptions;
  readonly #clock: Clock;
  readonly #signal: AbortSignal | undefined;
  readonly #maxRetries: number;
  readonly #maxWaitMs: number;
  readonly limiter: RateLimiter;

  constructor(
    readonly transport: Transport,
    readonly ctx: ApiClientContext,
    opts: ApiClientOptions = {},
  ) {
    this.#o = opts;
    this.#clock = opts.clock ?? systemClock;
    this.#signal = opts.signal;
    this.#maxRetries = Math.max(0, Math.floor(opts.maxRetries ?? 3));
    this.#maxWaitMs = opts.maxWaitMs ?? 120_000;
    this.limiter = opts.limiter ?? new RateLimiter({ clock: this.#clock, key: ctx.envName });
  }

  get lastQuota(): Quota | undefined {
    return this.#lastQuota;
  }

  get requestCount(): number {
    return this.#requests;
  }

  /**
   * Sends one request through the gate, retrying as allowed; any final HTTP status is returned. `beforeSend` runs
   * just before each attempt leaves (bulk seeding journals the record there; if it throws, nothing is sent).
   */
  async send(req: ApiRequest, hooks?: { beforeSend?: () => void; asksQuota?: boolean }): Promise<ApiResponse> {
    let retry: RetryContext | undefined;
    for (let attempt = 0; ; attempt++) {
      const permit = await this.limiter.acquire({
        signal: this.#signal,
        maxWaitMs: this.#maxWaitMs,
        asksQuota: hooks?.asksQuota,
        onWait: (info) => this.#announceGateWait(info, retry),
      });
      const a = await this.#attempt(req, permit, attempt, hooks?.beforeSend);
      const verdict = a.res ? statusVerdict(req.method, a.res.status) : retryVerdict(req.method, { error: a.error });
      if (verdict.action === 'return') return a.res!;
      if (verdict.action === 'throw') throw a.error;
      if (verdict.action === 'unknown') throw new OutcomeUnknownError(req, a.error as TransportError);
      // Only now: an answer already received (a 201 above all) is never thrown away on Ctrl-C.
      if (this.#signal?.aborted) throw new InterruptedError();
      if (verdict.wait === 'rate_limit') {
        await this.#beforeRateLimitRetry(req, a, attempt);
        retry = { attempt: attempt + 1, announced: false };
        continue;
      }
      const res = await this.#backOff(a, attempt);
      if (res) return res;
    }
  }

  /** One exchange with a permit in hand; the permit is settled with what the answer says. */
  async #attempt(req: ApiRequest, permit: Permit, attempt: number, beforeSend: (() => void) | undefined): Promise<Attempt> {
    try {
      // The fleet's budget last: a slot it counts in a window is used in that window.
      if (this.#o.fleet) await this.#o.fleet.take(this.#signal);
      beforeSend?.();
    } catch (e) {
      await permit.settle();
      throw e;
    }
    const a: Attempt = {};
    const sentAt = this.#clock.now();
    try {
      this.#requests++;
      a.res = await this.transport.once(req);
    } catch (e) {
      a.error = e;
    }
    const now = this.#clock.now();
    const res = a.res;
    if (res) {
      this.limiter.observeServerDate(firstValue(res.headers.date), sentAt, now);
      if (res.quota) this.#lastQuota = res.quota;
      if (res.status === 429) {
        const delay = this.#rateLimitDelay(res, attempt, now);
        a.gateUntil = now + delay.ms;
        a.tooLong = delay.tooLong;
      } else if (isBan(res)) {
        // A ban closes the gate too (a day at most), so parallel processes stop knocking.
        const ms = this.#retryAfterMs(res, now);
        a.gateUntil = ms === undefined ? undefined : now + Math.min(ms, MAX_WINDOW_MS);
      }
    }
    const settling = permit.settle({ quota: res?.quota, gateUntil: a.gateUntil });
    if (settling) await settling;
    if (this.#o.fleet) await this.#o.fleet.learn(res?.quota);
    return a;
  }

  /** After a 429: gives up (exit 6) when its Retry-After is too long or no retry is left. */
  async #beforeRateLimitRetry(req: ApiRequest, a: Attempt, attempt: number): Promise<void> {
    const now = this.#clock.now();
    const q = a.res?.quota;
    if (a.tooLong) throw this.#retryAfterTooLong(a.tooLong, now, this.limiter.windowOf(q));
    if (attempt >= this.#maxRetries) {
      const state = await this.limiter.state();
      const resetAt = Math.max(a.gateUntil ?? 0, state?.gateUntil ?? 0, q?.remaining === 0 ? q.resetAt : 0);
      throw rateLimitGiveUp({ kind: 'retries', maxRetries: this.#maxRetries, window: this.limiter.windowOf(q) }, resetAt, now, 429);
    }
    this.#o.debug?.(`429 on ${req.method} ${req.path}; gate closed until ${new Date(a.gateUntil ?? now).toISOString()}`);
  }

  /** Backoff (502-504, connection errors): this request waits alone, the gate stays open. The outcome when no retry is left. */
  async #backOff(a: Attempt, attempt: number): Promise<ApiResponse | undefined> {
    const { res, error } = a;
    const now = this.#clock.now();
    const ms = attempt < this.#maxRetries ? ((res && this.#retryAfterMs(res, now)) ?? backoffDelay(attempt, { random: this.#o.random })) : undefined;
    if (ms === undefined || ms > this.#maxWaitMs) {
      if (res) return res;
      throw error;
    }
    const what = res ? `server error (HTTP ${res.status})` : `${(error as Error).message}`;
    const n = `(attempt ${attempt + 1}/${this.#maxRetries})`;
    const notice: WaitNotice = { reason: res ? 'server' : 'network', ms, until: now + ms, text: (left) => `${what}; retrying in ${seconds(left)} ${n}` };
    const onWait = this.#o.onWait;
    await announcedSleep(this.#clock, ms, this.#signal, onWait && (() => onWait(notice)));
    return undefined;
  }

  async close(): Promise<void> {
    try {
      await this.#o.fleet?.close();
      await this.limiter.close();
    } finally {
      await this.transport.close();
    }
  }

  /** The wait a usable Retry-After asks for; an HTTP date gets the limiter's margin (the clocks agree only to the second). */
  #retryAfterMs(res: ApiResponse, now: number): number | undefined {
    const ra = parseRetryAfter(res.headers['retry-after'], now, res.headers.date);
    return ra && ra.ms + (ra.form === 'date' ? this.limiter.marginMs : 0);
  }

  /** How long the gate stays closed after a 429: Retry-After, else backoff; one over a day is not believed (backoff only). */
  #rateLimitDelay(res: ApiResponse, attempt: number, now: number): { ms: number; tooLong?: { ms: number; value: string } } {
    const ms = this.#retryAfterMs(res, now);
    const value = firstValue(res.headers['retry-after']) ?? '';
    if (ms !== undefined && ms <= MAX_WINDOW_MS) return ms > this.#maxWaitMs ? { ms, tooLong: { ms, value } } : { ms };
    const backoff = backoffDelay(attempt, { random: this.#o.random });
    if (ms !== undefined) {
      this.#o.debug?.(`Retry-After ${JSON.stringify(value)} is more than a day: not believed; the gate closes for ${backoff} ms only`);
      return { ms: backoff, tooLong: { ms, value } };
    }
    this.#o.debug?.(`429 without a usable Retry-After (${JSON.stringify(firstValue(res.headers['retry-after']) ?? null)}); backing off`);
    return { ms: backoff };
  }

  #retryAfterTooLong(tooLong: { ms: number; value: string }, now: number, window: LimitWindow | undefined): RateLimitedError {
    const shown = tooLong.value.length > 64 ? `${tooLong.value.slice(0, 64)}…` : tooLong.value;
    const asked = `the server asked to wait ${wholeSeconds(tooLong.ms)}s before the next request (Retry-After: ${shown})`;
    const maxWait = `--max-wait ${this.#maxWaitMs / 1000}s`;
    const resetAt = now + tooLong.ms;
    // More than a day is longer than any window: there is no reset to name.
    const never = tooLong.ms > MAX_WINDOW_MS;
    const tail = never
      ? `more than a day, longer than ${maxWait} and than any rate-limit window`
      : `longer than ${maxWait}; ${limitResetPhrase(window, resetAt, now)}`;
    return new RateLimitedError(`rate limited${byLimit(window)}: ${asked}, ${tail}`, {
      code: 'rate_limited',
      status: 429,
      ...(never ? {} : { resetAt }),
      advice: never ? 'try again later; if it persists, the server is misconfigured' : 'try again after that time, or raise --max-wait',
    });
  }

  #announceGateWait(info: WaitInfo, retry: RetryContext | undefined): ReturnType<WaitAnnouncer> {
    let text: (left: number) => string;
    const daily = info.window === 'day';
    if (retry && !retry.announced) {
      retry.announced = true;
      const n = `(attempt ${retry.attempt}/${this.#maxRetries})`;
      text = (left) => `rate limited${daily ? ' by the daily limit' : ''}; retrying in ${seconds(left)} ${n}`;
    } else if (info.reason === 'gate') {
      text = (left) => `rate limited${daily ? ' by the daily limit' : ''} (the server asked this key to wait); sending in ${seconds(left)}`;
    } else if (info.usedByOthers) {
      text = (left) => `rate limit: the other clients of this key have probably used this window up; waiting ${seconds(left)} for the next`;
    } else {
      const q = info.quota;
      const kept = info.kept ? `, kept for the other clients of this key` : '';
      const used = q ? ` (${q.remaining}/${q.limit} left${kept})` : '';
      text = (left) => `${daily ? 'daily limit' : 'rate limit'} reached${used}; waiting ${seconds(left)} for the ${daily ? 'daily ' : ''}window to reset`;
    }
    return this.#o.onWait?.({ reason: retry ? 'rate_limited' : info.reason, ms: info.ms, until: info.until, text });
  }
}
