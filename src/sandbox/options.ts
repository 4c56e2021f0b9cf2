// startSandbox's options and their defaults, and the flags of `petstore sandbox` checked into them.

import { UsageError } from '../errors/errors.js';
import { PLANS, wholeNumber } from '../flag-values.js';
import { INT64_MAX } from '../json/int64.js';

export type Plan = (typeof PLANS)[number];

/** The plan table of the interface document (requests per minute and per day). */
const PLAN_LIMITS: Readonly<Record<Plan, { perMinute: number; perDay: number }>> = {
  free: { perMinute: 60, perDay: 1_000 },
  pro: { perMinute: 300, perDay: 10_000 },
  business: { perMinute: 1_000, perDay: 100_000 },
};

/** The command's defaults (docs/sandbox.md), but port 0 and a generated key. */
export interface StartOptions {
  host?: string;
  port?: number;
  keys?: string[];
  plan?: Plan;
  perMinute?: number;
  perDay?: number;
  windowMs?: number;
  dayWindowMs?: number;
  ban?: boolean;
  banSeconds?: number;
  /** How early a retry after a 429 is still tolerated before a ban, in ms (default 100). */
  banGraceMs?: number;
  dataFile?: string;
  firstId?: bigint | number | string;
  /** Test hooks: a delay before each answer (ms), and a clock in epoch ms. */
  latencyMs?: number;
  clock?: () => number;
  /** Keep the last N requests for requests() (default 10,000); false or 0 keeps none. */
  recordRequests?: boolean | number;
  /** Called when a write of dataFile fails. */
  onError?: (error: unknown) => void;
}

export function resolveLimits(options: StartOptions) {
  const plan = options.plan ?? 'free';
  const windowMs = options.windowMs ?? 60_000;
  return {
    plan,
    perMinute: options.perMinute ?? PLAN_LIMITS[plan].perMinute,
    perDay: options.perDay ?? PLAN_LIMITS[plan].perDay,
    windowMs,
    dayWindowMs: options.dayWindowMs ?? 86_400_000,
    ban: options.ban ?? true,
    banSeconds: options.banSeconds ?? Math.max(1, Math.ceil((5 * windowMs) / 1000)),
    banGraceMs: options.banGraceMs ?? 100,
  };
}
export type Limits = ReturnType<typeof resolveLimits>;

const DURATION = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?$/i;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

function invalid(flag: string, value: unknown, rule: string): UsageError {
  return new UsageError(`invalid ${flag} "${String(value)}": ${rule}`);
}

/** Parses "500ms", "3s", "1.5s", "1m", "24h", "1d" (a bare number is seconds) into whole ms, at most 7 days. */
export function parseDuration(text: string, flag = 'duration'): number {
  const m = DURATION.exec(text.trim());
  const ms = m ? Number(m[1]) * (UNIT_MS[(m[2] ?? 's').toLowerCase()] ?? 1000) : Number.NaN;
  if (!Number.isInteger(ms) || ms < 1 || ms > 7 * 86_400_000) throw invalid(flag, text, 'must be a duration such as 500ms, 3s, 1m or 24h, from 1ms to 7d');
  return ms;
}

/** "60s", "3s", "500ms", "1.5s", "2m", "24h" */
export function formatDuration(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0 && ms > 60_000) return `${ms / 60_000}m`;
  return ms < 1000 ? `${ms}ms` : `${ms / 1000}s`;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'bigint' ? String(value) : undefined;
}

/** A flag's value read by `parse`; undefined when the flag was not given. */
function given<T>(raw: unknown, parse: (text: string) => T): T | undefined {
  const t = text(raw);
  return t === undefined ? undefined : parse(t);
}

function parseKeys(raw: unknown): string[] {
  const keys = raw === undefined ? [] : [raw].flat();
  for (const k of keys) {
    if (typeof k !== 'string' || !/^[\x21-\x7e]{1,512}$/.test(k)) throw invalid('--key', k, 'must be 1 to 512 printable ASCII characters without spaces');
  }
  return [...new Set(keys as string[])];
}

function parsePlan(raw: unknown): Plan {
  const plan = (text(raw) ?? 'free').trim().toLowerCase();
  if (plan === 'enterprise') throw invalid('--plan', raw, 'enterprise limits are custom: use a plan with --per-minute and --per-day');
  if (!(PLANS as readonly string[]).includes(plan)) throw invalid('--plan', raw, `must be one of ${PLANS.join(', ')}`);
  return plan as Plan;
}

function parseFirstId(raw: string): string {
  const t = raw.trim();
  if (!/^\d{1,19}$/.test(t) || BigInt(t) < 1n || BigInt(t) > INT64_MAX) throw invalid('--first-id', raw, `must be a whole number from 1 to ${INT64_MAX}`);
  return BigInt(t).toString();
}

/** The flags as commander gives them checked into startSandbox's options, and --log; throws a one-line UsageError. */
export function parseSandboxOptions(raw: Record<string, unknown>) {
  const host = text(raw.host) ?? '127.0.0.1';
  if (host.trim() === '' || /\s/.test(host)) throw invalid('--host', host, 'must be a host name or IP address');
  const dataFile = text(raw.data);
  if (dataFile?.trim() === '') throw invalid('--data', dataFile, 'must be a file path');
  return {
    host,
    port: given(raw.port, wholeNumber('--port', 0, 65535)) ?? 4010,
    keys: parseKeys(raw.key),
    plan: parsePlan(raw.plan),
    ban: raw.ban !== false,
    log: raw.log === true,
    perMinute: given(raw.perMinute, wholeNumber('--per-minute', 1, 1_000_000_000)),
    perDay: given(raw.perDay, wholeNumber('--per-day', 1, 1_000_000_000)),
    windowMs: given(raw.window, (t) => parseDuration(t, '--window')),
    dayWindowMs: given(raw.dayWindow, (t) => parseDuration(t, '--day-window')),
    dataFile,
    firstId: given(raw.firstId, parseFirstId),
    banSeconds: given(raw.banSeconds, wholeNumber('--ban-seconds', 1, 604_800)),
  } satisfies StartOptions & { log: boolean };
}

export type SandboxCommandOptions = ReturnType<typeof parseSandboxOptions>;
