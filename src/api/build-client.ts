// Builds an ApiClient wired for the CLI: transport, the key's shared rate-limit gate (state file in the
// config folder), retries, max-wait and announcements. Imported only by a command that sends.
import type { EnvVars, IO } from '../io/io.js';
import { FileRateStateStore, rateStateKey, rateStatePath } from '../ratelimit/rate-state.js';
import type { Clock } from '../time/clock.js';
import { ApiClient } from '../http/api-client.js';
import { HttpTransport } from '../transport/exchange.js';
import { proxySettingsFromEnv } from '../transport/proxy.js';
import { RateLimiter } from '../ratelimit/limiter.js';
import { RedisBudget } from '../ratelimit/redis-budget.js';
import { createWaitAnnouncer, type WaitAnnouncer } from '../ratelimit/wait-announcer.js';

/** The global flags a client follows (the factory's GlobalOptions); --timeout and --max-wait in seconds. */
interface ClientSettings {
  timeout: number;
  maxRetries: number;
  maxWait: number;
  quiet: boolean;
  debug: boolean;
  /** --limiter / PETSTORE_LIMITER: a redis:// URL whose budget every process of a fleet shares. */
  limiter?: string | undefined;
}

export interface BuildClientOptions {
  envName: string;
  /** Undefined for a key given to check (auth login). */
  keySource?: 'PETSTORE_API_KEY' | 'config' | 'keyring' | undefined;
  baseUrl: string;
  apiKey: string;
  /** Other secrets the trace and messages must mask (the other stored keys). */
  secrets?: readonly string[];
  /** Where the rate-limit state file lives. */
  configDir: string;
  version: string;
  settings: ClientSettings;
  io: IO;
  clock: Clock;
  signal: AbortSignal;
  /** Aborts requests in flight; defaults to signal. Bulk seeding lets them finish after Ctrl-C. */
  transportSignal?: AbortSignal | undefined;
  bulk?: { connections: number } | undefined;
  dispatcher?: import('undici').Dispatcher | undefined;
  /** The injected environment, for the proxy variables (never process.env). */
  env?: EnvVars | undefined;
  debug: (line: string) => void;
  /** Who announces waits instead of the default line or spinner (bulk seeding: its one progress line). */
  onWait?: WaitAnnouncer | undefined;
}

export function buildApiClient(o: BuildClientOptions): ApiClient {
  const { timeout, maxRetries, maxWait, quiet, limiter: limiterUrl } = o.settings;
  const timeoutMs = timeout * 1000;
  const fleet = limiterUrl
    ? new RedisBudget({
        url: limiterUrl,
        keyHash: rateStateKey('fleet', o.baseUrl, o.apiKey),
        clock: o.clock,
        probeMs: timeoutMs + 5000,
        maxWaitMs: maxWait * 1000,
        marginMs: () => limiter.marginMs,
        warn: (line) => {
          if (!quiet) o.io.stderr.write(`${line}\n`);
        },
        debug: o.debug,
      })
    : undefined;
  // One gate per environment and key, shared with every other petstore process through the state file.
  const limiter = new RateLimiter({
    clock: o.clock,
    key: rateStateKey(o.envName, o.baseUrl, o.apiKey),
    store: new FileRateStateStore(rateStatePath(o.configDir), { clock: o.clock, debug: o.debug, signal: o.signal, lockTimeoutMs: timeoutMs }),
    leaseMs: timeoutMs + 5000,
    // Slots in blocks and answers published in batches: each visit to the state file costs a lock, a read and a rename.
    batch: { maxBlock: 4096, flushMs: 500 },
    debug: o.debug,
    // While the fleet's budget counts every request, nothing is kept back for the others (fleet.ts).
    othersCounted: fleet && (() => fleet.counting),
  });
  const transport = new HttpTransport({
    baseUrl: o.baseUrl,
    apiKey: o.apiKey,
    secrets: o.secrets,
    userAgent: `petstore-cli/${o.version}`,
    timeoutMs,
    clock: o.clock,
    signal: o.transportSignal ?? o.signal,
    ...(o.dispatcher ? { dispatcher: o.dispatcher } : {}),
    bulk: o.bulk,
    proxy: proxySettingsFromEnv(o.env ?? {}),
    debug: o.settings.debug ? o.debug : undefined,
    note: o.debug,
  });
  return new ApiClient(
    transport,
    { envName: o.envName, keySource: o.keySource },
    {
      clock: o.clock,
      signal: o.signal,
      maxRetries,
      maxWaitMs: maxWait * 1000,
      limiter,
      fleet,
      onWait: traceWaits(o.onWait ?? createWaitAnnouncer({ io: o.io, clock: o.clock, quiet }), o.debug),
      debug: o.debug,
    },
  );
}

/** Every retry and rate-limit wait also goes to the --debug trace (the announcement itself is silenced by --quiet). */
function traceWaits(announce: WaitAnnouncer, debug: (line: string) => void): WaitAnnouncer {
  return (notice) => {
    debug(`wait (${notice.reason}, ${notice.ms} ms): ${notice.text(notice.ms)}`);
    return announce(notice);
  };
}
