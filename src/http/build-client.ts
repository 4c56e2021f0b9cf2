// Builds an ApiClient wired for the CLI: transport, the key's shared rate-limit
// gate (state file in the config folder), retries, max-wait and announcements.
// Imported lazily (it pulls in undici).

import type { GlobalOptions } from '../factory.js';
import type { IO } from '../io/io.js';
import { FileRateStateStore, rateStateKey, rateStatePath } from '../state/rate-state.js';
import type { Clock } from '../time/clock.js';
import { ApiClient } from './api-client.js';
import { HttpTransport } from './client.js';
import { RateLimiter } from './limiter.js';
import { createWaitAnnouncer } from './wait-announcer.js';

export interface BuildClientOptions {
  envName: string;
  baseUrl: string;
  apiKey: string;
  /** The config folder: the rate-limit state file lives there. */
  configDir: string;
  version: string;
  globals: GlobalOptions;
  io: IO;
  clock: Clock;
  signal: AbortSignal;
  /** Aborts requests in flight; defaults to signal. Bulk seeding lets them finish after Ctrl-C. */
  transportSignal?: AbortSignal;
  dispatcher?: import('undici').Dispatcher | undefined;
  debug: (line: string) => void;
}

export function buildApiClient(o: BuildClientOptions): ApiClient {
  const timeoutMs = o.globals.timeout * 1000;
  // One gate per environment and key, shared with every other petstore process through the state file.
  const limiter = new RateLimiter({
    clock: o.clock,
    key: rateStateKey(o.envName, o.apiKey),
    store: new FileRateStateStore(rateStatePath(o.configDir), { clock: o.clock, debug: o.debug }),
    leaseMs: timeoutMs + 5000,
  });
  const transport = new HttpTransport({
    baseUrl: o.baseUrl,
    apiKey: o.apiKey,
    userAgent: `petstore-cli/${o.version}`,
    timeoutMs,
    clock: o.clock,
    signal: o.transportSignal ?? o.signal,
    ...(o.dispatcher ? { dispatcher: o.dispatcher } : {}),
    debug: o.debug,
  });
  return new ApiClient(
    transport,
    { envName: o.envName },
    {
      clock: o.clock,
      signal: o.signal,
      maxRetries: o.globals.maxRetries,
      maxWaitMs: o.globals.maxWait * 1000,
      limiter,
      onWait: createWaitAnnouncer({ io: o.io, clock: o.clock, quiet: o.globals.quiet }),
      debug: o.debug,
    },
  );
}
