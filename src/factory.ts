import type { ConfigStore } from './config/store.js';
import type { Target } from './config/target.js';
import { noApiKeyError } from './errors/errors.js';
import { Redactor } from './output/redact.js';
import type { ApiClient } from './http/api-client.js';
import type { EnvVars, IO } from './io/io.js';
import type { WaitAnnouncer } from './ratelimit/wait-announcer.js';
import type { Clock } from './time/clock.js';

export interface GlobalOptions {
  env: string | undefined;
  debug: boolean;
  quiet: boolean;
  verbose: boolean;
  /** false with --no-color. */
  color: boolean;
  /** false with --no-input. */
  input: boolean;
  /** Seconds. */
  timeout: number;
  maxRetries: number;
  /** Seconds. */
  maxWait: number;
  /** --limiter or PETSTORE_LIMITER: the shared limiter's redis:// URL. */
  limiter?: string | undefined;
}

export interface FactoryDeps {
  io: IO;
  env: EnvVars;
  clock: Clock;
  globals: GlobalOptions;
  /** Aborts on Ctrl-C. */
  signal: AbortSignal;
  version: string;
  /** Test seam: an undici dispatcher (MockAgent) for the transport layer. */
  dispatcher?: import('undici').Dispatcher;
}

/** What every command's run function gets: I/O, settings and lazily built services. */
export interface Factory extends Readonly<Omit<FactoryDeps, 'version' | 'dispatcher'>> {
  config(): Promise<ConfigStore>;
  /** The environment, URL and key in force; throws a usage error if the URL is missing. */
  target(): Promise<Target>;
  /** An authenticated API client; throws an auth error when no key is available. */
  client(): Promise<ApiClient>;
  /** Another client for the environment and key in force, with its own options (bulk seeding); throws as client() does. */
  newClient(options: ClientForOptions): Promise<ApiClient>;
  /** A client for an explicit environment, URL and key (auth login checks a key before storing it). */
  clientFor(target: { envName: string; baseUrl: string; keySource?: Target['keySource'] }, apiKey: string, options?: ClientForOptions): Promise<ApiClient>;
  /** Clients built during this run (for the quota line and cleanup). */
  readonly clients: readonly ApiClient[];
  /** Every API key this run used, was given or found stored: output masks them. */
  secrets(): string[];
  redact(text: string): string;
  /** A header's value as it may be printed: credential headers masked whole, others as redact() does. */
  redactHeader(name: string, value: string): string;
  /** Lines to stderr, unless --quiet (info) or without --debug (debug), with secrets masked. */
  info(line: string): void;
  debug(line: string): void;
}

interface ClientForOptions {
  /** Aborts requests in flight (default: the Ctrl-C signal). */
  transportSignal?: AbortSignal;
  /** Also ends the waits before sending (bulk seeding: a results file it cannot write). */
  waitSignal?: AbortSignal;
  /** Many requests to come, at most `connections` at once (bulk seeding). */
  bulk?: { connections: number };
  /** Announces waits instead of the default line or spinner (bulk seeding's progress line). */
  onWait?: WaitAnnouncer;
}

/** The config store of the run's config folder (`learn` gets each key read from the keyring), with a warning when its permissions are loose. */
async function openConfig(deps: FactoryDeps, factory: Factory, learn: (key: string) => void): Promise<ConfigStore> {
  const [{ ConfigStore, loosePermissionsWarning }, { configDir }] = await Promise.all([import('./config/store.js'), import('./config/paths.js')]);
  // On a terminal a person may have to unlock the keyring: a longer bound, and the wait said.
  const person = deps.io.stderrIsTTY && deps.globals.input;
  const store = new ConfigStore(configDir(deps.env), {
    signal: deps.signal,
    lockTimeoutMs: deps.globals.timeout * 1000,
    debug: (line) => factory.debug(line),
    keyring: {
      clock: deps.clock,
      timeoutMs: person ? 30_000 : 2000,
      onSlow: person ? () => factory.info('waiting for the system keyring (up to 30 s); unlock it if it asks') : undefined,
      signal: deps.signal,
    },
    onSecret: learn,
  });
  const warning = loosePermissionsWarning(store.loosePermissions());
  if (warning) factory.info(warning);
  return store;
}

/** An API client for an environment, URL and key, with the run's global settings. */
async function openClient(deps: FactoryDeps, factory: Factory, t: Parameters<Factory['clientFor']>[0], rawKey: string, options: ClientForOptions) {
  const [{ buildApiClient }, config, { checkKeyText }] = await Promise.all([import('./api/build-client.js'), factory.config(), import('./config/target.js')]);
  // No request with a key a header cannot carry: one usage line instead of a transport failure.
  const source = !t.keySource ? 'the API key given' : t.keySource === 'PETSTORE_API_KEY' ? t.keySource : `the key stored for environment "${t.envName}"`;
  return buildApiClient({
    envName: t.envName,
    keySource: t.keySource,
    baseUrl: t.baseUrl,
    apiKey: checkKeyText(rawKey, source),
    secrets: factory.secrets(),
    configDir: config.dir,
    version: deps.version,
    settings: deps.globals,
    io: deps.io,
    clock: deps.clock,
    signal: options.waitSignal ? AbortSignal.any([deps.signal, options.waitSignal]) : deps.signal,
    transportSignal: options.transportSignal ?? deps.signal,
    bulk: options.bulk,
    onWait: options.onWait,
    dispatcher: deps.dispatcher,
    env: deps.env,
    debug: (line) => factory.debug(line),
  });
}

export function createFactory(deps: FactoryDeps): Factory {
  let config: Promise<ConfigStore> | undefined;
  let target: Promise<Target> | undefined;
  let client: Promise<ApiClient> | undefined;
  const clients: ApiClient[] = [];
  const keys = new Set<string>();
  let loaded: ConfigStore | undefined;
  // Built on first use and dropped when a secret is learnt (a key used, the config loaded).
  let redactor: Redactor | undefined;
  const learn = (...secrets: string[]) => {
    for (const key of secrets) keys.add(key);
    redactor = undefined;
  };
  const { version, dispatcher, ...shared } = deps;

  const factory: Factory = {
    ...shared,
    clients,
    info(line) {
      if (!deps.globals.quiet) deps.io.stderr.write(`${factory.redact(line)}\n`);
    },
    debug(line) {
      if (deps.globals.debug) deps.io.stderr.write(`debug: ${factory.redact(line)}\n`);
    },
    redact: (text) => (redactor ??= new Redactor(factory.secrets())).text(text),
    redactHeader: (name, value) => (redactor ??= new Redactor(factory.secrets())).header(name, value),
    config: () =>
      (config ??= openConfig(deps, factory, learn).then((store) => {
        loaded = store;
        learn();
        return store;
      })),
    target: () =>
      (target ??= Promise.all([import('./config/target.js'), factory.config()]).then(([{ resolveTarget }, store]) =>
        resolveTarget(store, deps.env, deps.globals.env),
      )),
    client: () => (client ??= factory.newClient({})),
    async newClient(options) {
      const t = await factory.target();
      if (!t.apiKey) throw noApiKeyError(t.envName);
      return factory.clientFor(t, t.apiKey, options);
    },
    secrets() {
      const envKey = deps.env.PETSTORE_API_KEY;
      const stored = loaded ? Object.values(loaded.envs()).flatMap((e) => (e.apiKey ? [e.apiKey] : [])) : [];
      return [...new Set([...keys, ...(envKey ? [envKey, envKey.trim()] : []), ...stored])];
    },
    async clientFor(t, rawKey, options = {}) {
      learn(rawKey, rawKey.trim());
      const c = await openClient(deps, factory, t, rawKey, options);
      clients.push(c);
      return c;
    },
  };
  return factory;
}
