// The options of startSandbox, completed with their defaults.

import { randomBytes } from 'node:crypto';
import type { PLANS } from '../flag-values.js';
import type { RecordedRequest } from './recorder.js';

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

function resolveLimits(options: SandboxOptions) {
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
  };
}

/**
 * The options completed with their defaults. They are not checked here: the command checks its flags
 * (options.ts), and the other callers are tests.
 */
export function resolveSettings(options: SandboxOptions) {
  const keys = [...new Set(options.keys)];
  const maxBodyBytes = options.maxBodyBytes ?? 64 * 1024;
  const record = options.recordRequests;
  return {
    host: options.host ?? '127.0.0.1',
    port: options.port ?? 0,
    // With none given, one generated: "sk_sandbox_" and 24 random base64url characters.
    keys: keys.length > 0 ? keys : [`sk_sandbox_${randomBytes(18).toString('base64url')}`],
    /** True when the key was generated because none was given. */
    generatedKey: keys.length === 0,
    limits: resolveLimits(options),
    banGraceMs: options.banGraceMs ?? 100,
    maxBodyBytes,
    /** Bodies larger than maxBodyBytes are read to their end (up to this) and refused; beyond, the connection closes. */
    drainBytes: Math.max(maxBodyBytes * 16, 1024 * 1024),
    /** How many requests requests() keeps. */
    recordLimit: record === false ? 0 : record === true || record === undefined ? 10_000 : record,
    firstId: BigInt(options.firstId ?? 1),
  };
}
export type Settings = ReturnType<typeof resolveSettings>;
