import type { Transport } from '../../../src/http/api-client.js';
import type { ApiRequest, ApiResponse } from '../../../src/transport/exchange.js';
import { quotaFromHeaders } from '../../../src/ratelimit/quota.js';
import { QuotaKeeper } from '../../../src/sandbox/rate-limit.js';
import type { Clock } from '../../../src/time/clock.js';

function response(status: number, headers: Record<string, string> = {}, now = 0, body: unknown = {}): ApiResponse {
  const text = JSON.stringify(body);
  return {
    status,
    headers: { 'content-type': 'application/json', ...headers },
    text,
    json: body,
    isJson: true,
    quota: quotaFromHeaders(headers, now),
  };
}

export type Step = { status: number; headers?: Record<string, string>; body?: unknown } | Error;

/** Answers each request with the next scripted step (the last one repeats); records when each was sent. */
export function scripted(clock: Clock, steps: Step[], latencyMs = 0) {
  const sent: Array<{ at: number; req: ApiRequest }> = [];
  let i = 0;
  const transport: Transport = {
    baseUrl: 'http://fake/v1',
    async once(req) {
      sent.push({ at: clock.now(), req });
      const step = steps[Math.min(i++, steps.length - 1)]!;
      if (latencyMs > 0) await clock.sleep(latencyMs);
      if (step instanceof Error) throw step;
      return response(step.status, step.headers, clock.now(), step.body ?? {});
    },
    close: async () => {},
  };
  return { transport, sent };
}

export interface ModelOptions {
  perWindow: number;
  windowMs: number;
  /** Requests per day (default 1,000,000). */
  perDay?: number;
  /** One-way latency, ms (request travel = response travel). */
  latency?: (n: number) => number;
}

/**
 * The sandbox's own rate limiter (fixed windows, Retry-After, ban on early
 * retry with no grace) behind a fake transport on the fake clock: an oracle
 * for "no request is ever refused while a Retry-After runs".
 */
export function modelServer(clock: Clock, opts: ModelOptions) {
  const limiter = new QuotaKeeper({
    perMinute: opts.perWindow,
    windowMs: opts.windowMs,
    perDay: opts.perDay ?? 1_000_000,
    dayWindowMs: 86_400_000,
    ban: true,
    banSeconds: 60,
    banGraceMs: 0,
  });
  const log: Array<{ at: number; status: number; remaining: number }> = [];
  let n = 0;
  const transport: Transport = {
    baseUrl: 'http://model/v1',
    async once() {
      const latency = opts.latency?.(n++) ?? 10;
      await clock.sleep(latency);
      const at = clock.now();
      const d = limiter.check('key', at);
      const headers: Record<string, string> = {
        'x-ratelimit-limit': String(d.headers.limit),
        'x-ratelimit-remaining': String(d.headers.remaining),
        'x-ratelimit-reset': String(d.headers.reset),
      };
      let status = 200;
      if (d.kind === 'limited') {
        status = 429;
        headers['retry-after'] = String(d.retryAfter);
      } else if (d.kind === 'banned') {
        status = 403;
        headers['retry-after'] = String(d.retryAfter);
      }
      log.push({ at, status, remaining: d.headers.remaining });
      await clock.sleep(latency);
      return response(status, headers, clock.now(), status === 403 ? { code: 'key_banned', message: 'banned', status } : []);
    },
    close: async () => {},
  };
  return { transport, log, count: (status: number) => log.filter((e) => e.status === status).length };
}
