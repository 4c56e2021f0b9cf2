import { Chalk } from 'chalk';
import { wholeSeconds } from '../time/format.js';
import type { Quota } from './quota.js';

/** "quota: 57/60 left, resets in 42s" on stderr after a command that made requests. */
export function quotaLine(remaining: number, limit: number, resetInMs: number): string {
  return `quota: ${remaining}/${limit} left, resets in ${wholeSeconds(resetInMs)}s`;
}

/** Whether the quota line follows a command: always with --verbose, otherwise once under 20% of the limit is left. */
export function quotaLineWanted(quota: Quota, verbose: boolean): boolean {
  return verbose || quota.remaining < quota.limit * 0.2;
}

/** exhausted at 0, low under 10% of the limit, normal otherwise. */
export function quotaLevel(remaining: number, limit: number): 'normal' | 'low' | 'exhausted' {
  if (remaining <= 0) return 'exhausted';
  if (limit > 0 && remaining < limit * 0.1) return 'low';
  return 'normal';
}

/** The line coloured for stderr: dim normally, yellow when low, red at 0 (plain without colour). */
export function renderQuotaLine(quota: Quota, now: number, color: boolean): string {
  const line = quotaLine(quota.remaining, quota.limit, quota.resetAt - now);
  const chalk = new Chalk({ level: color ? 1 : 0 });
  const level = quotaLevel(quota.remaining, quota.limit);
  return (level === 'exhausted' ? chalk.red : level === 'low' ? chalk.yellow : chalk.dim)(line);
}
