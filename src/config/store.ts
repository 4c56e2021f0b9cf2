import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../errors/errors.js';
import { replaceDurably } from '../fs/durable-write.js';
import { FileLock } from '../fs/lock.js';
import { makeDir } from '../fs/make-dir.js';
import { storageProblem } from '../io/storage-problem.js';
import { systemClock } from '../time/clock.js';
import { Keyring, type KeyringOptions, KeyringUnavailableError } from './keyring.js';

export const BUILTIN_ENVS = ['production', 'staging'] as const;

/** production and staging always exist: removing one resets it (no URL, no key). */
export function isBuiltin(name: string): boolean {
  return (BUILTIN_ENVS as readonly string[]).includes(name);
}

const DEFAULT_ENV = 'production';

export interface EnvEntry {
  baseUrl?: string;
  /** The key itself, in this 0600 file: where no keyring was usable, or with --insecure-storage. */
  apiKey?: string;
  /** Where the key is instead: its account in the system keyring (src/config/keyring.ts). */
  keyring?: string;
}

export function hasStoredKey(entry: EnvEntry | undefined): boolean {
  return entry?.apiKey !== undefined || entry?.keyring !== undefined;
}

/** Where setKey put a key; `problem`: why not in the keyring; `leftover`: the account of an old keyring entry that could not be deleted. */
export type StoreResult = { inKeyring: boolean; problem: string | undefined; leftover: string | undefined };

export type StoredKey = { key: string | undefined; source: 'config' | 'keyring' | undefined };

interface ConfigData {
  currentEnv?: string;
  envs?: Record<string, EnvEntry>;
}

export const ENV_NAME = /^[a-z][a-z0-9_-]{0,31}$/;

function describeShapeProblem(data: unknown): string | undefined {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return 'the top level is not an object';
  const d = data as Record<string, unknown>;
  if (d.currentEnv !== undefined && typeof d.currentEnv !== 'string') return '"currentEnv" is not a string';
  if (d.envs === undefined) return undefined;
  if (typeof d.envs !== 'object' || d.envs === null || Array.isArray(d.envs)) return '"envs" is not an object';
  for (const [name, entry] of Object.entries(d.envs)) {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return `"envs.${name}" is not an object`;
    const e = entry as Record<string, unknown>;
    for (const field of ['baseUrl', 'apiKey', 'keyring']) {
      if (e[field] !== undefined && typeof e[field] !== 'string') return `"envs.${name}.${field}" is not a string`;
    }
  }
  return undefined;
}

const FIX = 'fix or move it aside, then run the command again';

/** Where JSON.parse gave up, without quoting the file (V8's messages may quote it, and it holds API keys). */
function jsonProblem(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (/Unexpected end of JSON input/i.test(message)) return 'it ends too early, as if cut off';
  const what = (message.split(/,\s*"|\s+in JSON\b/)[0] ?? '').trim();
  const at = /line (\d+) column (\d+)/.exec(message);
  return `${what || 'not JSON'}${at ? ` at line ${at[1]} column ${at[2]}` : ''}`;
}

function readConfig(file: string): ConfigData {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return {};
    throw new UsageError(`cannot read config file ${file} (${code ?? (error as Error).message}); check its owner and permissions (chmod 600 ${file})`, {
      code: 'config_unreadable',
      cause: error,
    });
  }
  let data: unknown;
  try {
    data = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new UsageError(`config file ${file} is not valid JSON (${jsonProblem(error)}); it was left as it is; ${FIX}`, {
      code: 'config_invalid',
      cause: error,
    });
  }
  const problem = describeShapeProblem(data);
  if (problem) {
    throw new UsageError(`config file ${file} has an unexpected shape: ${problem}; it was left as it is; ${FIX}`, { code: 'config_invalid' });
  }
  return data as ConfigData;
}

export type LoosePermission = { path: string; mode: number; risk: string; fix: string };

const octal = (mode: number) => mode.toString(8).padStart(4, '0');

export function loosePermissionsWarning(found: readonly LoosePermission[]): string | undefined {
  if (found.length === 0) return undefined;
  const what = found.map((p) => `${p.path} is mode ${octal(p.mode)}: ${p.risk}`).join('; ');
  return `warning: ${what}. Fix with: ${found.map((p) => p.fix).join(' && ')}`;
}

export interface ConfigLockOptions {
  signal?: AbortSignal | undefined;
  lockTimeoutMs?: number | undefined;
  debug?: ((line: string) => void) | undefined;
  /** The system keyring's bound and announcement (default: 2 s, said nowhere). */
  keyring?: KeyringOptions | undefined;
  /** Learns each key read from the keyring (output masks it). */
  onSecret?: ((key: string) => void) | undefined;
}

// The settings and keys, one file (0600) in a folder of its own (0700). Each change reads the file again and
// replaces it durably under a lock, so concurrent processes never lose an update.
export class ConfigStore {
  readonly path: string;
  #keyringClient: Keyring | undefined;

  constructor(
    readonly dir: string,
    private readonly lockOpts: ConfigLockOptions = {},
  ) {
    try {
      makeDir(dir, 0o700);
    } catch (error) {
      throw new UsageError(`cannot use the config folder ${dir}: ${storageProblem(error)}; set PETSTORE_CONFIG_DIR to a folder you can write`);
    }
    this.path = join(dir, 'config.json');
    readConfig(this.path);
  }

  get #keyring(): Keyring {
    this.#keyringClient ??= new Keyring({ clock: systemClock, timeoutMs: 2000, bindingDir: this.dir, ...this.lockOpts.keyring });
    return this.#keyringClient;
  }

  loosePermissions(): LoosePermission[] {
    if (process.platform === 'win32') return [];
    const found: LoosePermission[] = [];
    const mode = (path: string) => {
      try {
        return statSync(path).mode & 0o7777;
      } catch {
        return undefined; // not written yet: nothing to warn about
      }
    };
    const dirMode = mode(this.dir);
    if (dirMode !== undefined && dirMode & 0o022 && !(dirMode & 0o1000)) {
      found.push({ path: this.dir, mode: dirMode, risk: 'others may replace your config file there', fix: `chmod go-w ${this.dir}` });
    }
    const fileMode = mode(this.path);
    if (fileMode !== undefined && fileMode & 0o077) {
      found.push({ path: this.path, mode: fileMode, risk: 'others may read your API keys', fix: `chmod 600 ${this.path}` });
    }
    return found;
  }

  currentEnv(): string {
    return this.storedCurrentEnv() ?? DEFAULT_ENV;
  }

  storedCurrentEnv(): string | undefined {
    return readConfig(this.path).currentEnv;
  }

  /** Every environment by name, in a map without a prototype: "constructor" or "toString" is a name like any other. */
  envs(): Record<string, EnvEntry> {
    const all: Record<string, EnvEntry> = Object.create(null);
    for (const name of BUILTIN_ENVS) all[name] = {};
    return Object.assign(all, readConfig(this.path).envs);
  }

  env(name: string): EnvEntry | undefined {
    const all = this.envs();
    return Object.hasOwn(all, name) ? all[name] : undefined;
  }

  // The file is read again under the lock: one broken since is reported, not written over.
  async #locked(change: (data: ConfigData) => void): Promise<void> {
    const lock = new FileLock(join(this.dir, 'config.lock'), {
      clock: systemClock,
      staleMs: 10_000,
      pollMs: 10,
      timeoutMs: this.lockOpts.lockTimeoutMs ?? 10_000,
      signal: this.lockOpts.signal,
      debug: this.lockOpts.debug,
    });
    // Without a lock (a folder that cannot hold one), the write itself reports the problem.
    const locked = await lock.acquire();
    try {
      const data = readConfig(this.path);
      change(data);
      replaceDurably(this.path, JSON.stringify(data, undefined, '\t'), `${this.path}.${process.pid}.tmp`, 0o600);
    } finally {
      if (locked) lock.release();
    }
  }

  async setCurrentEnv(name: string): Promise<void> {
    await this.#locked((data) => {
      data.currentEnv = name;
    });
  }

  async #updateEnv(name: string, change: (entry: EnvEntry) => EnvEntry): Promise<void> {
    await this.#locked((data) => {
      const envs: Record<string, EnvEntry> = Object.assign(Object.create(null), data.envs);
      envs[name] = change(envs[name] ?? {});
      data.envs = envs;
    });
  }

  /** A keyring call's result, or the reason the keyring cannot be used. */
  async #attempt<T>(call: (keyring: Keyring) => Promise<T>): Promise<T | KeyringUnavailableError> {
    try {
      return await call(this.#keyring);
    } catch (error) {
      if (error instanceof KeyringUnavailableError) return error;
      throw error;
    }
  }

  /** Deletes an environment's keyring entry; a store that cannot do it is an error and nothing is changed. */
  async #forget(name: string, account: string): Promise<void> {
    const failed = await this.#attempt((keyring) => keyring.delete(account));
    if (failed instanceof KeyringUnavailableError) {
      const what = `cannot remove the API key of "${name}" from the system keyring (${failed.message}); nothing was changed`;
      throw new KeyringUnavailableError(`${what}: unlock the keyring and run the command again`, { code: failed.code });
    }
  }

  async setBaseUrl(name: string, baseUrl: string, opts: { dropKey?: boolean } = {}): Promise<void> {
    const account = this.env(name)?.keyring;
    if (opts.dropKey && account !== undefined) await this.#forget(name, account);
    await this.#updateEnv(name, (entry) => ({ ...(opts.dropKey ? withoutKey(entry) : entry), baseUrl }));
  }

  /** The stored key of an environment, wherever it is; a keyring that cannot be read is an auth error (exit 4). */
  async readKey(name: string, entry: EnvEntry): Promise<StoredKey> {
    const account = entry.keyring;
    const found = account === undefined ? entry.apiKey : await this.#attempt((keyring) => keyring.get(account));
    if (found instanceof KeyringUnavailableError) {
      throw new KeyringUnavailableError(`cannot read the API key of "${name}" from the system keyring: ${found.message}`, {
        code: found.code,
        advice: `unlock the keyring, set PETSTORE_API_KEY, or store the key in the config file: petstore auth login --env ${name} --insecure-storage`,
      });
    }
    const key = found?.trim() || undefined;
    if (key && account !== undefined) this.lockOpts.onSecret?.(key);
    return { key, source: key ? (account === undefined ? 'config' : 'keyring') : undefined };
  }

  /** Stores a key in the keyring under `account`, else (none given, or the keyring unusable) in this file; drops the other copy. */
  async setKey(name: string, apiKey: string, account?: string): Promise<StoreResult> {
    const failed = account === undefined ? undefined : await this.#attempt((keyring) => keyring.set(account, apiKey));
    const inKeyring = account !== undefined && failed === undefined;
    const before = this.env(name)?.keyring;
    await this.#updateEnv(name, (entry) => ({ ...withoutKey(entry), ...(inKeyring ? { keyring: account } : { apiKey }) }));
    const stale = before !== undefined && !(inKeyring && before === account);
    const kept = stale && (await this.#attempt((keyring) => keyring.delete(before))) instanceof KeyringUnavailableError;
    return { inKeyring, problem: failed?.message, leftover: kept ? before : undefined };
  }

  async removeEnv(name: string): Promise<{ defaultReset: boolean }> {
    const account = this.env(name)?.keyring;
    if (account !== undefined) await this.#forget(name, account);
    let defaultReset = false;
    await this.#locked((data) => {
      const { [name]: _removed, ...rest } = data.envs ?? {};
      data.envs = rest;
      if (data.currentEnv === name && !isBuiltin(name)) {
        delete data.currentEnv;
        defaultReset = true;
      }
    });
    return { defaultReset };
  }

  /** Removes the stored key from wherever it is (the keyring first: a kill in between leaves no key behind). */
  async deleteKey(name: string): Promise<boolean> {
    const entry = this.env(name);
    if (!hasStoredKey(entry)) return false;
    if (entry?.keyring !== undefined) await this.#forget(name, entry.keyring);
    await this.#updateEnv(name, withoutKey);
    return true;
  }
}

function withoutKey({ apiKey: _key, keyring: _account, ...rest }: EnvEntry): EnvEntry {
  return rest;
}
