// The options of startSandbox, checked and completed with their defaults.

import { randomBytes } from 'node:crypto';
import { PLANS } from '../flag-values.js';
import { toInt64 } from '../json/int64.js';
import type { RecordedRequest } from './recorder.js';
import { SandboxOptionError } from './errors.js';

export type Plan = (typeof PLANS)[number];

/** The plan table of the interface document (requests per minute and per day). */
const PLAN_LIMITS: Readonly<Record<Plan, { perMinute: number; perDay: number }>> = {
  free: { perMinute: 60, perDay: 1_000 },
  pro: { perMinute: 300, perDay: 10_000 },
  business: { perMinute: 1_000, perDay: 100_000 },
};

export interface SandboxOptions {
  /** Interface to listen on; 127.0.0.1 by default. */
  host?: string;
  /** Port; 0 (the default here) picks a free one. */
  port?: number;
  /** Accepted API keys; when empty one is generated. */
  keys?: string[];
  plan?: Plan;
  /** Overrides the plan's requests per window (per minute). */
  perMinute?: number;
  /** Overrides the plan's requests per day. */
  perDay?: number;
  /** Length of the per-minute window in ms (default 60,000). */
  windowMs?: number;
  /** Length of the per-day window in ms (default 86,400,000). */
  dayWindowMs?: number;
  /** Ban keys that retry before the 429's reset instant (default true). */
  ban?: boolean;
  /** Ban length in seconds (default 5 windows, rounded up). */
  banSeconds?: number;
  /** Tolerance for early retries before a ban, in ms (default 100). */
  banGraceMs?: number;
  /** Keep pets in this file, loaded at start. */
  dataFile?: string;
  /** First id handed out (default 1); never lowers the id stored in dataFile. */
  firstId?: bigint | number | string;
  /** Test hook: fixed delay before answering each request, in ms. */
  latencyMs?: number;
  /** Clock in epoch ms (default Date.now); tests may inject a fake one. */
  clock?: () => number;
  /** Largest accepted request body (default 64 KiB). */
  maxBodyBytes?: number;
  /** Keep the last N requests for requests() (default 10,000); false or 0 disables. */
  recordRequests?: boolean | number;
  /** Called after each response (e.g. for a request log). */
  onRequest?: (request: RecordedRequest) => void;
  /** Called when a write of dataFile fails (the create gets a 500 storage_failed). */
  onError?: (error: unknown) => void;
}

export interface SandboxLimits {
  plan: Plan;
  perMinute: number;
  perDay: number;
  windowMs: number;
  dayWindowMs: number;
  ban: boolean;
  banSeconds: number;
}

export interface Settings {
  host: string;
  port: number;
  keys: string[];
  /** True when the key was generated because none was given. */
  generatedKey: boolean;
  limits: SandboxLimits;
  banGraceMs: number;
  maxBodyBytes: number;
  /** Bodies larger than maxBodyBytes are read to their end (up to this) and refused; beyond, the connection closes. */
  drainBytes: number;
  recordLimit: number;
  firstId: bigint;
}

const KEY_PATTERN = /^[\x21-\x7e]+$/;

function positiveInt(value: number | undefined, name: string, max = 1e12): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isSafeInteger(value) || value < 1 || value > max) throw new SandboxOptionError(`${name} must be a whole number from 1 to ${max}, got ${value}`);
  return value;
}

function positiveMs(value: number | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isFinite(value) || value <= 0) throw new SandboxOptionError(`${name} must be a positive number of milliseconds, got ${value}`);
  return value;
}

function toFirstId(value: bigint | number | string | undefined): bigint {
  if (value === undefined) return 1n;
  const id = typeof value === 'string' ? (/^\d+$/.test(value.trim()) ? toInt64(BigInt(value.trim())) : undefined) : toInt64(value);
  if (id === undefined || id < 1n) throw new SandboxOptionError(`firstId must be an integer from 1 to 9223372036854775807, got ${String(value)}`);
  return id;
}

function resolveLimits(options: SandboxOptions): SandboxLimits {
  const plan = options.plan ?? 'free';
  if (!(PLANS as readonly string[]).includes(plan)) throw new SandboxOptionError(`plan must be one of ${PLANS.join(', ')}, got ${String(plan)}`);
  const windowMs = positiveMs(options.windowMs, 'windowMs') ?? 60_000;
  return {
    plan,
    perMinute: positiveInt(options.perMinute, 'perMinute') ?? PLAN_LIMITS[plan].perMinute,
    perDay: positiveInt(options.perDay, 'perDay') ?? PLAN_LIMITS[plan].perDay,
    windowMs,
    dayWindowMs: positiveMs(options.dayWindowMs, 'dayWindowMs') ?? 86_400_000,
    ban: options.ban ?? true,
    banSeconds: positiveInt(options.banSeconds, 'banSeconds') ?? Math.max(1, Math.ceil((5 * windowMs) / 1000)),
  };
}

/** The given keys, or one generated: "sk_sandbox_" and 24 random base64url characters. */
function resolveKeys(given: readonly string[] = []): string[] {
  const keys = [...new Set(given)];
  for (const k of keys) {
    if (!KEY_PATTERN.test(k)) throw new SandboxOptionError(`API key ${JSON.stringify(k)} must be non-empty printable ASCII without spaces`);
  }
  return keys.length > 0 ? keys : [`sk_sandbox_${randomBytes(18).toString('base64url')}`];
}

function recordLimit(record: boolean | number | undefined): number {
  if (record === false) return 0;
  if (record === true || record === undefined) return 10_000;
  return Math.max(0, Math.floor(record));
}

export function resolveSettings(options: SandboxOptions): Settings {
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new SandboxOptionError(`port must be a whole number from 0 to 65535, got ${port}`);
  const maxBodyBytes = positiveInt(options.maxBodyBytes, 'maxBodyBytes', 1024 ** 3) ?? 64 * 1024;
  return {
    host: options.host ?? '127.0.0.1',
    port,
    keys: resolveKeys(options.keys),
    generatedKey: (options.keys ?? []).length === 0,
    limits: resolveLimits(options),
    banGraceMs: Math.max(0, options.banGraceMs ?? 100),
    maxBodyBytes,
    drainBytes: Math.max(maxBodyBytes * 16, 1024 * 1024),
    recordLimit: recordLimit(options.recordRequests),
    firstId: toFirstId(options.firstId),
  };
}
