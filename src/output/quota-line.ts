import type { Factory } from '../factory.js';

/** "quota: 57/60 left, resets in 42s" on stderr after a command that made requests. */
export function quotaLine(remaining: number, limit: number, resetInMs: number): string {
  return `quota: ${remaining}/${limit} left, resets in ${Math.max(0, Math.ceil(resetInMs / 1000))}s`;
}

export function reportQuota(f: Factory): void {
  if (f.globals.quiet) return;
  if (!f.io.stderrIsTTY && !f.globals.verbose) return;
  const quota = f.clients.map((c) => c.lastQuota).findLast((q) => q !== undefined);
  if (!quota) return;
  f.io.stderr.write(`${quotaLine(quota.remaining, quota.limit, quota.resetAt - f.clock.now())}\n`);
}
