// Builds an ApiClient wired for the CLI: transport, the key's shared rate-limit
// gate (state file in the config folder), retries, max-wait and announcements.
// Imported lazily (the transport, the limiter and its state file load only for a command that sends).

import type { EnvVars, IO } from '../io/io.js';
import { FileRateStateStore, rateStateKey, rateStatePath } from '../ratelimit/rate-state.js';
import { MAX_WINDOW_MS, type Clock } from '../time/clock.js';
import { ApiClient } from '../http/api-client.js';
import { HttpTransport } from '../transport/exchange.js';
import { proxySettingsFromEnv } from '../transport/proxy.js';
import { RateLimiter, type KeyRateState, type RateStateStore } from '../ratelimit/limiter.js';
import { RedisBudget } from '../ratelimit/redis-budget.js';
import { createWaitAnnouncer, type WaitAnnouncer } from '../ratelimit/wait-announcer.js';

export interface BuildClientOptions {
  envName: string;
  /** Where the key came from (PETSTORE_API_KEY or the config file); undefined for a key given to check (auth login). */
  keySource?: 'PETSTORE_API_KEY' | 'config' | undefined;
  baseUrl: string;
  apiKey: string;
  /** Other secrets the trace and messages must mask (the other stored keys). */
  secrets?: readonly string[];
  /** The config folder: the rate-limit state file lives there. */
  configDir: string;
  version: string;
  /** Per-request timeout (--timeout), seconds. */
  timeoutSeconds: number;
  /** --max-retries. */
  maxRetries: number;
  /** --max-wait, seconds. */
  maxWaitSeconds: number;
  /** --quiet: no wait announcements. */
  quiet: boolean;
  /** --debug: the per-exchange trace goes to `debug`. */
  traceRequests: boolean;
  io: IO;
  clock: Clock;
  signal: AbortSignal;
  /** Aborts requests in flight; defaults to signal. Bulk seeding lets them finish after Ctrl-C. */
  transportSignal?: AbortSignal;
  /** Many requests to come, at most `connections` at once: undici's dispatcher rather than node:http (see HttpTransport). */
  bulk?: { connections: number } | undefined;
  dispatcher?: import('undici').Dispatcher | undefined;
  /** The injected environment: HTTPS_PROXY, HTTP_PROXY, NO_PROXY (never process.env). */
  env?: EnvVars | undefined;
  debug: (line: string) => void;
  /** --limiter / PETSTORE_LIMITER: a redis:// URL whose budget every process of a fleet shares. */
  limiterUrl?: string | undefined;
  /** Who announces waits instead of the default line or spinner (bulk seeding: its one progress line). */
  onWait?: WaitAnnouncer | undefined;
}

export function buildApiClient(o: BuildClientOptions): ApiClient {
  const timeoutMs = o.timeoutSeconds * 1000;
  // The fleet's budget in Redis (ioredis loads on the first request); without it, the limiter alone.
  const fleet = o.limiterUrl
    ? new RedisBudget({
        url: o.limiterUrl,
        keyHash: rateStateKey('fleet', o.baseUrl, o.apiKey),
        clock: o.clock,
        probeMs: timeoutMs + 5000,
        maxWaitMs: o.maxWaitSeconds * 1000,
        marginMs: () => limiter.marginMs,
        warn: (line) => {
          if (!o.quiet) o.io.stderr.write(`${line}\n`);
        },
        debug: o.debug,
      })
    : undefined;
  // One gate per environment and key, shared with every other petstore process through the state file.
  const limiter = new RateLimiter({
    clock: o.clock,
    key: rateStateKey(o.envName, o.baseUrl, o.apiKey),
    store: clampedStore(
      new FileRateStateStore(rateStatePath(o.configDir), { clock: o.clock, debug: o.debug, signal: o.signal, lockTimeoutMs: timeoutMs }),
      o.clock,
      o.debug,
    ),
    leaseMs: timeoutMs + 5000,
    // Slots in blocks and answers published in batches while the quota is plentiful: the file
    // costs a lock, a read and a rename per operation. Blocks of up to 4,096 (not the limiter's 64; an
    // unused block is one entry in the file, whatever its size) and answers published every 500 ms
    // (not 100; at once when the quota runs low, a 429 or a ban): a bulk run against a large quota then
    // goes to the file a few times a second, not a hundred (issue #18).
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
    // The per-exchange trace only with --debug (the transport skips formatting it otherwise).
    debug: o.traceRequests ? o.debug : undefined,
    note: o.debug,
  });
  return new ApiClient(
    transport,
    { envName: o.envName, keySource: o.keySource },
    {
      clock: o.clock,
      signal: o.signal,
      maxRetries: o.maxRetries,
      maxWaitMs: o.maxWaitSeconds * 1000,
      limiter,
      fleet,
      onWait: traceWaits(o.onWait ?? createWaitAnnouncer({ io: o.io, clock: o.clock, quiet: o.quiet }), o.debug),
      debug: o.debug,
    },
  );
}

/**
 * Drops what no server could have meant from a key's stored state before the limiter sees it: a gate
 * or a window reset more than a day (the longest window of any plan) ahead. This client never stores
 * such values (src/ratelimit/quota.ts, src/http/api-client.ts clamp them); older versions did, and
 * a shared file may hold them: without this the key would stay locked out until the file is deleted.
 */
function clampedStore(store: RateStateStore, clock: Clock, debug: (line: string) => void): RateStateStore {
  const clamp = (s: KeyRateState | undefined): KeyRateState | undefined => {
    if (!s) return s;
    const limit = clock.now() + MAX_WINDOW_MS;
    if (s.gateUntil > limit) {
      debug(`rate-limit state: a gate until ${s.gateUntil} (more than a day ahead) is ignored`);
      s.gateUntil = 0;
    }
    if (s.quota && s.quota.resetAt > limit) {
      debug(`rate-limit state: a quota window resetting at ${s.quota.resetAt} (more than a day ahead) is ignored`);
      delete s.quota;
    }
    return s;
  };
  return {
    update: (key, change, signal, saved) => store.update(key, (s) => change(clamp(s) ?? s), signal, saved),
    get: async (key) => clamp(await store.get(key)),
    ...(store.stamp ? { stamp: () => store.stamp?.() } : {}),
  };
}

/** Every retry and rate-limit wait also goes to the --debug trace (the announcement itself is silenced by --quiet). */
function traceWaits(announce: WaitAnnouncer, debug: (line: string) => void): WaitAnnouncer {
  return (notice) => {
    debug(`wait (${notice.reason}, ${notice.ms} ms): ${notice.text(notice.ms)}`);
    return announce(notice);
  };
}
