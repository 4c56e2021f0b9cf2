import { Chalk } from 'chalk';
import { wholeSeconds } from '../time/format.js';
import { type Quota, quotaTone } from './quota.js';

/** Whether the quota line follows a command: always with --verbose, otherwise once under 20% of the limit is left. */
export function quotaLineWanted(quota: Quota, verbose: boolean): boolean {
  return verbose || quota.remaining < quota.limit * 0.2;
}

/** "quota: 57/60 left, resets in 42s" for stderr, in quotaTone's colour or dim (plain without colour). */
export function renderQuotaLine(quota: Quota, now: number, color: boolean): string {
  const line = `quota: ${quota.remaining}/${quota.limit} left, resets in ${wholeSeconds(quota.resetAt - now)}s`;
  return new Chalk({ level: color ? 1 : 0 })[quotaTone(quota) ?? 'dim'](line);
}
