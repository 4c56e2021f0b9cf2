// Flag values of `petstore sandbox`, validated into typed options.

import { INT64_MAX } from '../json/int64.js';
import { SandboxOptionError } from './errors.js';
import type { SandboxOptions } from './server.js';
import { PLANS, type Plan } from './types.js';

const DEFAULT_PORT = 4010;
const DEFAULT_HOST = '127.0.0.1';

/** The typed options of `petstore sandbox` (see parseSandboxOptions for the flags). */
export interface SandboxCommandOptions {
  host: string;
  port: number;
  /** --key, repeatable; empty = generate one. */
  keys: string[];
  plan: Plan;
  perMinute?: number;
  perDay?: number;
  /** Length of the per-minute window, e.g. "60s" (default), "3s", "500ms". */
  window?: string;
  /** Length of the per-day window (default "24h"). */
  dayWindow?: string;
  /** --data FILE */
  data?: string;
  /** Exact decimal digits of the first id. */
  firstId?: string;
  /** false with --no-ban. */
  ban: boolean;
  banSeconds?: number;
  /** --log: one line per request on stderr. */
  log: boolean;
}

const DURATION = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?$/i;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const MAX_DURATION_MS = 7 * 86_400_000;

function invalid(flag: string, value: unknown, rule: string): SandboxOptionError {
  return new SandboxOptionError(`invalid ${flag} "${String(value)}": ${rule}`);
}

/** Parses "500ms", "3s", "1.5s", "1m", "24h", "1d" (a bare number is seconds) into whole ms. */
export function parseDuration(text: string, flag = 'duration'): number {
  const m = DURATION.exec(text.trim());
  const rule = 'must be a duration such as 500ms, 3s, 1m or 24h, from 1ms to 7d';
  if (!m) throw invalid(flag, text, rule);
  const ms = Number(m[1]) * (UNIT_MS[(m[2] ?? 's').toLowerCase()] ?? 1000);
  if (!Number.isInteger(ms) || ms < 1 || ms > MAX_DURATION_MS) throw invalid(flag, text, rule);
  return ms;
}

function text(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  return undefined;
}

function wholeNumber(value: unknown, flag: string, min: number, max: number): number | undefined {
  const t = text(value);
  if (value === undefined || value === null) return undefined;
  if (t === undefined || !/^\s*\d+\s*$/.test(t) || Number(t) < min || Number(t) > max) {
    throw invalid(flag, t ?? value, `must be a whole number from ${min} to ${max}`);
  }
  return Number(t);
}

/**
 * Validates raw flag values (as commander gives them: camelCase names, strings,
 * --key collected into an array, --no-ban as ban: false). Throws
 * SandboxOptionError with a one-line message for any invalid value.
 */
export function parseSandboxOptions(raw: Record<string, unknown>): SandboxCommandOptions {
  const host = text(raw.host) ?? DEFAULT_HOST;
  if (host.trim() === '' || /\s/.test(host)) throw invalid('--host', host, 'must be a host name or IP address');

  const port = wholeNumber(raw.port, '--port', 0, 65535) ?? DEFAULT_PORT;

  const rawKeys = raw.key ?? raw.keys;
  const keyList: unknown[] = rawKeys === undefined ? [] : Array.isArray(rawKeys) ? rawKeys : [rawKeys];
  const keys: string[] = [];
  for (const k of keyList) {
    if (typeof k !== 'string' || !/^[\x21-\x7e]{1,512}$/.test(k)) {
      throw invalid('--key', k, 'must be 1 to 512 printable ASCII characters without spaces');
    }
    if (!keys.includes(k)) keys.push(k);
  }

  const planText = (text(raw.plan) ?? 'free').trim().toLowerCase();
  if (planText === 'enterprise') {
    throw invalid('--plan', raw.plan, 'enterprise limits are custom: use a plan with --per-minute and --per-day');
  }
  if (!(PLANS as readonly string[]).includes(planText)) throw invalid('--plan', raw.plan, `must be one of ${PLANS.join(', ')}`);
  const plan = planText as Plan;

  const opts: SandboxCommandOptions = { host, port, keys, plan, ban: raw.ban !== false && raw.noBan !== true, log: raw.log === true };

  const perMinute = wholeNumber(raw.perMinute, '--per-minute', 1, 1_000_000_000);
  if (perMinute !== undefined) opts.perMinute = perMinute;
  const perDay = wholeNumber(raw.perDay, '--per-day', 1, 1_000_000_000);
  if (perDay !== undefined) opts.perDay = perDay;

  const window = text(raw.window);
  if (window !== undefined) {
    parseDuration(window, '--window');
    opts.window = window.trim();
  }
  const dayWindow = text(raw.dayWindow);
  if (dayWindow !== undefined) {
    parseDuration(dayWindow, '--day-window');
    opts.dayWindow = dayWindow.trim();
  }

  const data = text(raw.data);
  if (data !== undefined) {
    if (data.trim() === '') throw invalid('--data', data, 'must be a file path');
    opts.data = data;
  }

  const firstId = text(raw.firstId);
  if (firstId !== undefined) {
    const t = firstId.trim();
    if (!/^\d{1,19}$/.test(t) || BigInt(t) < 1n || BigInt(t) > INT64_MAX) {
      throw invalid('--first-id', firstId, `must be a whole number from 1 to ${INT64_MAX}`);
    }
    opts.firstId = BigInt(t).toString();
  }

  const banSeconds = wholeNumber(raw.banSeconds, '--ban-seconds', 1, 604_800);
  if (banSeconds !== undefined) opts.banSeconds = banSeconds;
  return opts;
}

/** The startSandbox options for validated command options. */
export function toSandboxOptions(opts: SandboxCommandOptions): SandboxOptions {
  const out: SandboxOptions = { host: opts.host, port: opts.port, keys: opts.keys, plan: opts.plan, ban: opts.ban };
  if (opts.perMinute !== undefined) out.perMinute = opts.perMinute;
  if (opts.perDay !== undefined) out.perDay = opts.perDay;
  if (opts.window !== undefined) out.windowMs = parseDuration(opts.window, '--window');
  if (opts.dayWindow !== undefined) out.dayWindowMs = parseDuration(opts.dayWindow, '--day-window');
  if (opts.data !== undefined) out.dataFile = opts.data;
  if (opts.firstId !== undefined) out.firstId = opts.firstId;
  if (opts.banSeconds !== undefined) out.banSeconds = opts.banSeconds;
  return out;
}
