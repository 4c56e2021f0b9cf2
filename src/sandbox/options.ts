// Flag values of `petstore sandbox`, validated into typed options.

import { PLANS } from '../flag-values.js';
import { INT64_MAX } from '../json/int64.js';
import { SandboxOptionError } from './errors.js';
import type { Plan, SandboxOptions } from './settings.js';

const DURATION = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?$/i;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const MAX_DURATION_MS = 7 * 86_400_000;

function invalid(flag: string, value: unknown, rule: string): SandboxOptionError {
  return new SandboxOptionError(`invalid ${flag} "${String(value)}": ${rule}`);
}

/** Parses "500ms", "3s", "1.5s", "1m", "24h", "1d" (a bare number is seconds) into whole ms. */
export function parseDuration(text: string, flag = 'duration'): number {
  const m = DURATION.exec(text.trim());
  const ms = m ? Number(m[1]) * (UNIT_MS[(m[2] ?? 's').toLowerCase()] ?? 1000) : Number.NaN;
  if (!Number.isInteger(ms) || ms < 1 || ms > MAX_DURATION_MS) throw invalid(flag, text, 'must be a duration such as 500ms, 3s, 1m or 24h, from 1ms to 7d');
  return ms;
}

/** "60s", "3s", "500ms", "1.5s", "2m", "24h" */
export function formatDuration(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0 && ms > 60_000) return `${ms / 60_000}m`;
  return ms < 1000 ? `${ms}ms` : `${ms / 1000}s`;
}

function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  return undefined;
}

function wholeNumber(value: unknown, flag: string, min: number, max: number): number | undefined {
  if (value === undefined || value === null) return undefined;
  const t = text(value);
  if (t === undefined || !/^\s*\d+\s*$/.test(t) || Number(t) < min || Number(t) > max) {
    throw invalid(flag, t ?? value, `must be a whole number from ${min} to ${max}`);
  }
  return Number(t);
}

function parseKeys(raw: unknown): string[] {
  const keys: string[] = [];
  for (const k of raw === undefined ? [] : [raw].flat()) {
    if (typeof k !== 'string' || !/^[\x21-\x7e]{1,512}$/.test(k)) throw invalid('--key', k, 'must be 1 to 512 printable ASCII characters without spaces');
    if (!keys.includes(k)) keys.push(k);
  }
  return keys;
}

function parsePlan(raw: unknown): Plan {
  const plan = (text(raw) ?? 'free').trim().toLowerCase();
  if (plan === 'enterprise') throw invalid('--plan', raw, 'enterprise limits are custom: use a plan with --per-minute and --per-day');
  if (!(PLANS as readonly string[]).includes(plan)) throw invalid('--plan', raw, `must be one of ${PLANS.join(', ')}`);
  return plan as Plan;
}

function parseFirstId(raw: unknown): string | undefined {
  const firstId = text(raw);
  if (firstId === undefined) return undefined;
  const t = firstId.trim();
  if (!/^\d{1,19}$/.test(t) || BigInt(t) < 1n || BigInt(t) > INT64_MAX) throw invalid('--first-id', firstId, `must be a whole number from 1 to ${INT64_MAX}`);
  return BigInt(t).toString();
}

/** A duration flag as given (trimmed), once it is known to parse. */
function durationText(raw: unknown, flag: string): string | undefined {
  const t = text(raw);
  if (t !== undefined) parseDuration(t, flag);
  return t?.trim();
}

/**
 * Validates raw flag values (as commander gives them: camelCase names, strings, --key collected into an
 * array, --no-ban as ban: false) into the typed options of `petstore sandbox`: windows as given ("3s"),
 * firstId as exact digits. Throws SandboxOptionError with a one-line message for any invalid value.
 */
export function parseSandboxOptions(raw: Record<string, unknown>) {
  const host = text(raw.host) ?? '127.0.0.1';
  if (host.trim() === '' || /\s/.test(host)) throw invalid('--host', host, 'must be a host name or IP address');
  const data = text(raw.data);
  if (data?.trim() === '') throw invalid('--data', data, 'must be a file path');
  return {
    host,
    port: wholeNumber(raw.port, '--port', 0, 65535) ?? 4010,
    keys: parseKeys(raw.key ?? raw.keys),
    plan: parsePlan(raw.plan),
    ban: raw.ban !== false && raw.noBan !== true,
    log: raw.log === true,
    perMinute: wholeNumber(raw.perMinute, '--per-minute', 1, 1_000_000_000),
    perDay: wholeNumber(raw.perDay, '--per-day', 1, 1_000_000_000),
    window: durationText(raw.window, '--window'),
    dayWindow: durationText(raw.dayWindow, '--day-window'),
    data,
    firstId: parseFirstId(raw.firstId),
    banSeconds: wholeNumber(raw.banSeconds, '--ban-seconds', 1, 604_800),
  };
}

export type SandboxCommandOptions = ReturnType<typeof parseSandboxOptions>;

/** The startSandbox options for validated command options. */
export function toSandboxOptions(opts: SandboxCommandOptions): SandboxOptions {
  const { host, port, keys, plan, ban, perMinute, perDay, window, dayWindow, data, firstId, banSeconds } = opts;
  const windowMs = window === undefined ? undefined : parseDuration(window, '--window');
  const dayWindowMs = dayWindow === undefined ? undefined : parseDuration(dayWindow, '--day-window');
  return { host, port, keys, plan, ban, perMinute, perDay, windowMs, dayWindowMs, dataFile: data, firstId, banSeconds };
}
