import { MalformedResponseError, noApiKeyError, NotFoundError } from '../../errors/errors.js';
import { checkKey } from '../../api/pets.js';
import type { Target } from '../../config/target.js';
import type { Factory } from '../../factory.js';
import { wholeSeconds } from '../../time/format.js';
import { quotaFromHeaders, quotaTone, type Quota } from '../../ratelimit/quota.js';
import { MAX_WINDOW_MS } from '../../time/clock.js';
import { type LimitWindow, quotaWindow } from '../../ratelimit/fleet.js';
import { resolveOutput, type OutputOptions } from '../../output/format.js';
import { printRecord, type View } from '../../output/print.js';

/** A quota, and "day" when the daily limit binds (its reset is beyond any minute window, or it is the smaller one). */
type Seen = { quota: Quota; window: LimitWindow };

export async function command(f: Factory, _args: string[], opts: Record<string, unknown>): Promise<void> {
  await run(f, { ...resolveOutput(opts), cached: opts.cached === true });
}

function quotaReport(env: string, { quota, window }: Seen, source: 'live' | 'cached', now: number) {
  return {
    env,
    limit: quota.limit,
    remaining: quota.remaining,
    reset: new Date(quota.resetAt).toISOString(),
    resetEpoch: Math.floor(quota.resetAt / 1000),
    resetInSeconds: wholeSeconds(quota.resetAt - now),
    source,
    seenAt: new Date(quota.seenAt).toISOString(),
    window,
  };
}

async function cachedQuota(f: Factory, { envName, baseUrl, apiKey }: Target): Promise<Seen> {
  if (!apiKey) throw noApiKeyError(envName);
  const [{ FileRateStateStore, rateStateKey, rateStatePath }, config] = await Promise.all([import('../../ratelimit/rate-state.js'), f.config()]);
  const store = new FileRateStateStore(rateStatePath(config.dir), { clock: f.clock, debug: (line) => f.debug(line) });
  let quota = (await store.get(rateStateKey(envName, baseUrl, apiKey)))?.quota;
  // Written by an older petstore that believed any header: a reset beyond the longest window is not shown.
  if (quota && !(Number.isFinite(quota.resetAt) && Math.abs(quota.resetAt - f.clock.now()) <= MAX_WINDOW_MS)) {
    f.debug(`rate-limit state: a quota window resetting at ${quota.resetAt} (more than a day away) is ignored`);
    quota = undefined;
  }
  if (!quota) {
    throw new NotFoundError(`no quota seen yet for environment "${envName}" with this key`, {
      code: 'no_cached_quota',
      hint: `petstore quota --env ${envName}`,
    });
  }
  return { quota, window: quotaWindow(quota) };
}

async function liveQuota(f: Factory): Promise<Seen> {
  const client = await f.client();
  const res = await checkKey(client);
  if (!res.quota) {
    // Sent, but not usable (an absurd reset): say which value, not that there were none.
    let problem: string | undefined;
    quotaFromHeaders(res.headers, f.clock.now(), (line) => {
      problem = line;
    });
    throw new MalformedResponseError(
      problem !== undefined
        ? `the server's rate-limit headers cannot be used: ${problem} (HTTP ${res.status})`
        : `the server sent no rate-limit headers (X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset) (HTTP ${res.status})`,
      { status: res.status, code: 'no_rate_limit_headers' },
    );
  }
  return { quota: res.quota, window: client.limiter.windowOf(res.quota) ?? 'minute' };
}

export async function run(f: Factory, options: OutputOptions & { cached: boolean }): Promise<void> {
  const target = await f.target();
  const seen = options.cached ? await cachedQuota(f, target) : await liveQuota(f);
  const { quota } = seen;
  const now = f.clock.now();
  const report = quotaReport(target.envName, seen, options.cached ? 'cached' : 'live', now);
  if (report.window === 'day') {
    f.info(`note: the daily limit is the one that binds: ${quota.remaining}/${quota.limit} left today, resets at ${report.reset}`);
  }
  if (options.cached && quota.resetAt <= now) {
    f.info(`note: the window seen at ${report.seenAt} has reset since; run "petstore quota" for live values`);
  }
  await printRecord(f, options.format, quotaView, report, options);
}

const quotaView: View<ReturnType<typeof quotaReport>> = {
  columns: [
    { header: 'env', text: (r) => r.env },
    { header: 'limit', text: (r) => String(r.limit) },
    { header: 'remaining', text: (r) => String(r.remaining), tone: quotaTone },
    { header: 'reset', text: (r) => r.reset },
    { header: 'resetInSeconds', text: (r) => String(r.resetInSeconds) },
  ],
  json: (r) => r,
};
