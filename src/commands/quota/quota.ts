import { AuthError, MalformedResponseError, NotFoundError, UsageError } from '../../errors/errors.js';
import type { Factory } from '../../factory.js';
import type { Quota } from '../../http/quota.js';

export type QuotaFormat = 'table' | 'json';

export interface QuotaOptions {
  format: QuotaFormat;
  /** Last-seen values from the state file; no request. */
  cached: boolean;
}

/** What `petstore quota -o json` prints. */
export interface QuotaReport {
  env: string;
  limit: number;
  remaining: number;
  /** ISO 8601 instant of the reset. */
  reset: string;
  /** Unix seconds of the reset (X-RateLimit-Reset). */
  resetEpoch: number;
  resetInSeconds: number;
  source: 'live' | 'cached';
  /** When the values were received. */
  seenAt: string;
}

export async function command(f: Factory, _args: string[], opts: Record<string, unknown>): Promise<void> {
  const raw = opts.json === true ? 'json' : opts.output === undefined ? 'table' : String(opts.output);
  if (raw !== 'table' && raw !== 'json') {
    throw new UsageError(`invalid --output "${raw}": must be table or json`);
  }
  await run(f, { format: raw, cached: opts.cached === true });
}

export function quotaReport(env: string, quota: Quota, source: 'live' | 'cached', now: number): QuotaReport {
  return {
    env,
    limit: quota.limit,
    remaining: quota.remaining,
    reset: new Date(quota.resetAt).toISOString(),
    resetEpoch: Math.floor(quota.resetAt / 1000),
    resetInSeconds: Math.max(0, Math.ceil((quota.resetAt - now) / 1000)),
    source,
    seenAt: new Date(quota.seenAt).toISOString(),
  };
}

async function cachedQuota(f: Factory, envName: string, apiKey: string): Promise<Quota> {
  const [{ FileRateStateStore, rateStateKey, rateStatePath }, config] = await Promise.all([import('../../state/rate-state.js'), f.config()]);
  const store = new FileRateStateStore(rateStatePath(config.dir), { clock: f.clock, debug: (line) => f.debug(line) });
  const quota = (await store.get(rateStateKey(envName, apiKey)))?.quota;
  if (!quota) {
    throw new NotFoundError(`no quota seen yet for environment "${envName}" with this key`, {
      code: 'no_cached_quota',
      hint: 'run "petstore quota" without --cached to ask the server',
    });
  }
  return quota;
}

async function liveQuota(f: Factory): Promise<Quota> {
  const client = await f.client();
  // The cheapest request the interface has.
  const res = await client.call({ method: 'GET', path: '/pets', query: { limit: 1 } });
  if (!res.quota) {
    throw new MalformedResponseError(
      `the server sent no rate-limit headers (X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset) (HTTP ${res.status})`,
      { status: res.status, code: 'no_rate_limit_headers' },
    );
  }
  return res.quota;
}

export async function run(f: Factory, options: QuotaOptions): Promise<void> {
  const target = await f.target();
  let quota: Quota;
  if (options.cached) {
    if (!target.apiKey) {
      throw new AuthError(`no API key for environment "${target.envName}"`, {
        code: 'no_api_key',
        hint: `petstore auth login --env ${target.envName} (or set PETSTORE_API_KEY)`,
      });
    }
    quota = await cachedQuota(f, target.envName, target.apiKey);
  } else {
    quota = await liveQuota(f);
  }
  const now = f.clock.now();
  const report = quotaReport(target.envName, quota, options.cached ? 'cached' : 'live', now);
  if (options.cached && quota.resetAt <= now) {
    f.info(`note: the window seen at ${report.seenAt} has reset since; run "petstore quota" for live values`);
  }
  f.io.stdout.write(options.format === 'json' ? `${JSON.stringify(report, null, f.io.stdoutIsTTY ? 2 : undefined)}\n` : table(report, f.io.stdoutIsTTY));
}

/** Aligned columns with a header on a terminal; one tab-separated row otherwise. */
function table(r: QuotaReport, tty: boolean): string {
  const row = [r.env, String(r.limit), String(r.remaining), r.reset, String(r.resetInSeconds)];
  if (!tty) return `${row.join('\t')}\n`;
  const head = ['ENV', 'LIMIT', 'REMAINING', 'RESET', 'RESET IN (S)'];
  const widths = head.map((h, i) => Math.max(h.length, row[i]!.length));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('  ');
  return `${line(head)}\n${line(row)}\n`;
}
