// The retrying client under the API layer: every request passes the key's rate-limit gate; send() may run
// concurrently. A POST that may have reached the server is never sent twice (OutcomeUnknownError).
import { InterruptedError } from '../errors/errors.js';
import { rateLimitGiveUp, retryAfterTooLong } from '../ratelimit/give-up.js';
import { RateLimiter } from '../ratelimit/limiter.js';
import type { Permit, WaitInfo } from '../ratelimit/permit.js';
import type { Quota } from '../ratelimit/quota.js';
import type { RedisBudget } from '../ratelimit/redis-budget.js';
import type { WaitAnnouncer, WaitNotice } from '../ratelimit/wait-announcer.js';
import type { TransportError } from '../transport/errors.js';
import type { ApiRequest, ApiResponse } from '../transport/exchange.js';
import { announcedSleep, type Clock, MAX_WINDOW_MS, systemClock } from '../time/clock.js';
import { wholeSeconds } from '../time/format.js';
import { firstValue } from '../wire/headers.js';
import { isBan } from './error-body.js';
import { OutcomeUnknownError } from './outcome.js';
import { backoffDelay, parseRetryAfter, retryVerdict } from './retry-policy.js';

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
  limiter?: RateLimiter;
  /** --limiter: the fleet's budget, taken once the limiter's permit is in hand. */
  fleet?: RedisBudget | undefined;
  random?: () => number;
  onWait?: WaitAnnouncer;
  debug?: (line: string) => void;
}

const seconds = (ms: number) => `${wholeSeconds(ms)}s`;

/** What one attempt came to; after a 429 or a ban the key's gate closes until gateUntil; `tooLong`: a 429's Retry-After beyond --max-wait (or a day). */
interface Attempt {
  res?: ApiResponse;
  error?: unknown;
  gateUntil?: number | undefined;
  tooLong?: { ms: number; value: string } | undefined;
}

export class ApiClient {
  lastQuota: Quota | undefined;
  requestCount = 0;
  readonly #o: ApiClientOptions;
  readonly #clock: Clock;
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
    this.#maxRetries = Math.max(0, Math.floor(opts.maxRetries ?? 3));
    this.#maxWaitMs = opts.maxWaitMs ?? 120_000;
    this.limiter = opts.limiter ?? new RateLimiter({ clock: this.#clock, key: ctx.envName });
  }

  // Sends one request through the gate, retrying as allowed; any final HTTP status is returned. `beforeSend` runs
  // just before each attempt leaves (bulk seeding journals the record there; if it throws, nothing is sent).
  async send(req: ApiRequest, hooks?: { beforeSend?: () => void; asksQuota?: boolean }): Promise<ApiResponse> {
    // The retry about to happen after a 429, and whether its wait was announced.
    let retry: { attempt: number; announced: boolean } | undefined;
    for (let attempt = 0; ; attempt++) {
      const permit = await this.limiter.acquire({
        signal: this.#o.signal,
        maxWaitMs: this.#maxWaitMs,
        asksQuota: hooks?.asksQuota,
        onWait: (info) => this.#announceGateWait(info, retry),
      });
      const a = await this.#attempt(req, permit, attempt, hooks?.beforeSend);
      const verdict = retryVerdict(req.method, a.res ?? { error: a.error });
      if (verdict.action === 'return') return a.res!;
      if (verdict.action === 'throw') throw a.error;
      if (verdict.action === 'unknown') throw new OutcomeUnknownError(req, a.error as TransportError);
      // Only now: an answer already received (a 201 above all) is never thrown away on Ctrl-C.
      if (this.#o.signal?.aborted) throw new InterruptedError();
      if (verdict.wait === 'rate_limit') {
        await this.#beforeRateLimitRetry(req, a, attempt);
        retry = { attempt: attempt + 1, announced: false };
        continue;
      }
      const res = await this.#backOff(a, attempt);
      if (res) return res;
    }
  }

  async #attempt(req: ApiRequest, permit: Permit, attempt: number, beforeSend: (() => void) | undefined): Promise<Attempt> {
    try {
      // The fleet's budget last: a slot it counts in a window is used in that window.
      if (this.#o.fleet) await this.#o.fleet.take(this.#o.signal);
      beforeSend?.();
    } catch (e) {
      await permit.settle();
      throw e;
    }
    const a: Attempt = {};
    const sentAt = this.#clock.now();
    try {
      this.requestCount++;
      a.res = await this.transport.once(req);
    } catch (e) {
      a.error = e;
    }
    const now = this.#clock.now();
    const res = a.res;
    if (res) {
      this.limiter.observeServerDate(firstValue(res.headers.date), sentAt, now);
      if (res.quota) this.lastQuota = res.quota;
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
    if (a.tooLong) throw retryAfterTooLong(a.tooLong.ms, a.tooLong.value, this.#maxWaitMs, now, this.limiter.windowOf(q));
    if (attempt >= this.#maxRetries) {
      const state = await this.limiter.state();
      const resetAt = Math.max(a.gateUntil ?? 0, state?.gateUntil ?? 0, q?.remaining === 0 ? q.resetAt : 0);
      throw rateLimitGiveUp(this.#maxRetries, this.limiter.windowOf(q), resetAt, now);
    }
    this.#o.debug?.(`429 on ${req.method} ${req.path}; gate closed until ${new Date(a.gateUntil ?? now).toISOString()}`);
  }

  /** Backoff (502-504, connection errors): this request waits alone, the gate stays open. The outcome when no retry is left. */
  async #backOff({ res, error }: Attempt, attempt: number): Promise<ApiResponse | undefined> {
    const now = this.#clock.now();
    const ms = attempt < this.#maxRetries ? ((res && this.#retryAfterMs(res, now)) ?? backoffDelay(attempt, this.#o.random)) : undefined;
    if (ms === undefined || ms > this.#maxWaitMs) {
      if (res) return res;
      throw error;
    }
    const what = res ? `server error (HTTP ${res.status})` : `${(error as Error).message}`;
    const n = `(attempt ${attempt + 1}/${this.#maxRetries})`;
    const notice: WaitNotice = { reason: res ? 'server' : 'network', ms, until: now + ms, text: (left) => `${what}; retrying in ${seconds(left)} ${n}` };
    const onWait = this.#o.onWait;
    await announcedSleep(this.#clock, ms, this.#o.signal, onWait && (() => onWait(notice)));
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
    const value = firstValue(res.headers['retry-after']);
    if (ms !== undefined && ms <= MAX_WINDOW_MS) return ms > this.#maxWaitMs ? { ms, tooLong: { ms, value: value ?? '' } } : { ms };
    const backoff = backoffDelay(attempt, this.#o.random);
    if (ms === undefined) {
      this.#o.debug?.(`429 without a usable Retry-After (${JSON.stringify(value ?? null)}); backing off`);
      return { ms: backoff };
    }
    this.#o.debug?.(`Retry-After ${JSON.stringify(value ?? '')} is more than a day: not believed; the gate closes for ${backoff} ms only`);
    return { ms: backoff, tooLong: { ms, value: value ?? '' } };
  }

  #announceGateWait(info: WaitInfo, retry: { attempt: number; announced: boolean } | undefined): ReturnType<WaitAnnouncer> {
    const retrying = retry !== undefined && !retry.announced;
    if (retry) retry.announced = true;
    const daily = info.window === 'day';
    const q = info.quota;
    const used = q ? ` (${q.remaining}/${q.limit} left${info.kept ? ', kept for the other clients of this key' : ''})` : '';
    const text = (left: number) => {
      if (retrying) return `rate limited${daily ? ' by the daily limit' : ''}; retrying in ${seconds(left)} (attempt ${retry!.attempt}/${this.#maxRetries})`;
      if (info.reason === 'gate') return `rate limited${daily ? ' by the daily limit' : ''} (the server asked this key to wait); sending in ${seconds(left)}`;
      if (info.usedByOthers) return `rate limit: the other clients of this key have probably used this window up; waiting ${seconds(left)} for the next`;
      return `${daily ? 'daily limit' : 'rate limit'} reached${used}; waiting ${seconds(left)} for the ${daily ? 'daily ' : ''}window to reset`;
    };
    return this.#o.onWait?.({ reason: retry ? 'rate_limited' : info.reason, ms: info.ms, until: info.until, text });
  }
}
