import { UsageError } from '../errors/errors.js';
import type { EnvVars } from '../io/io.js';
import type { ConfigStore, EnvEntry } from './store.js';

export interface Target {
  envName: string;
  envSource: 'flag' | 'PETSTORE_ENV' | 'config' | 'default';
  baseUrl: string;
  baseUrlSource: 'PETSTORE_BASE_URL' | 'config';
  apiKey: string | undefined;
  /** config: the key is in config.json; keyring: in the system keyring. */
  keySource: 'PETSTORE_API_KEY' | 'config' | 'keyring' | undefined;
}

const LOOPBACK = /^(localhost|\[::1\]|127\.\d{1,3}\.\d{1,3}\.\d{1,3})$/;

/** https anywhere, http only on loopback, never with credentials, query or fragment. */
export function checkBaseUrl(raw: string, what = 'base URL'): { url: string; warning: string | undefined } {
  const url = URL.parse(raw);
  if (!url) throw new UsageError(`invalid ${what} "${raw}": expected an absolute URL such as https://api.example.com/v1`);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError(`invalid ${what} "${raw}": the scheme must be https (or http on a loopback host)`);
  }
  if (url.protocol === 'http:' && !LOOPBACK.test(url.hostname)) {
    throw new UsageError(`invalid ${what} "${raw}": plain http is allowed only for loopback hosts (127.0.0.1, localhost, [::1]); use https`);
  }
  if (url.username || url.password) {
    throw new UsageError(`invalid ${what}: it must not contain credentials; store the key with "petstore auth login" instead`);
  }
  if (url.search || url.hash) {
    throw new UsageError(`invalid ${what} "${raw}": it must not contain a query string or fragment`);
  }
  const normalised = url.toString().replace(/\/+$/, '');
  const warning = /\/v1$/.test(url.pathname.replace(/\/+$/, ''))
    ? undefined
    : `warning: ${what} ${normalised} does not end in /v1, the API version this CLI speaks`;
  return { url: normalised, warning };
}

/** Which environment this invocation uses (--env, PETSTORE_ENV, "env use", then the built-in default); throws a usage error if it is unknown. */
export function resolveEnvName(
  config: ConfigStore,
  env: EnvVars,
  flagEnv: string | undefined,
): { envName: string; envSource: Target['envSource']; entry: EnvEntry } {
  const fromEnv = env.PETSTORE_ENV || undefined;
  const stored = config.storedCurrentEnv();
  const envName = flagEnv ?? fromEnv ?? config.currentEnv();
  const envSource = flagEnv !== undefined ? 'flag' : fromEnv !== undefined ? 'PETSTORE_ENV' : stored !== undefined ? 'config' : 'default';
  const entry = config.env(envName);
  if (!entry) {
    const known = Object.keys(config.envs()).join(', ');
    throw new UsageError(`unknown environment "${envName}" (known: ${known}); add it with: petstore env set ${envName} <baseUrl>`);
  }
  return { envName, envSource, entry };
}

export function resolveBaseUrl(entry: EnvEntry, env: EnvVars, envName: string): { url: string; source: Target['baseUrlSource'] } | undefined {
  const overrideUrl = env.PETSTORE_BASE_URL;
  const rawUrl = overrideUrl || entry.baseUrl;
  if (!rawUrl) return undefined;
  const { url } = checkBaseUrl(rawUrl, overrideUrl ? 'PETSTORE_BASE_URL' : `base URL of environment "${envName}"`);
  return { url, source: overrideUrl ? 'PETSTORE_BASE_URL' : 'config' };
}

/** PETSTORE_API_KEY, else the stored key wherever it is (the keyring is asked only then). */
export async function resolveKey(config: ConfigStore, envName: string, entry: EnvEntry, env: EnvVars): Promise<Pick<Target, 'apiKey' | 'keySource'>> {
  const envKey = env.PETSTORE_API_KEY?.trim();
  if (envKey) return { apiKey: envKey, keySource: 'PETSTORE_API_KEY' };
  const { key, source } = await config.readKey(envName, entry);
  return { apiKey: key, keySource: source };
}

/** What makes a (trimmed) key unfit for `Authorization: Bearer <key>` (one token of visible ASCII), never quoting it. */
export function keyProblem(key: string): string | undefined {
  if (key.length === 0) return 'it is empty';
  for (const ch of key) {
    const c = ch.codePointAt(0) ?? 0;
    if (c === 0x0a || c === 0x0d) return 'it contains a line break';
    if (c === 0x20 || c === 0x09) return 'it contains a space or a tab';
    if (c < 0x20 || c === 0x7f) return 'it contains a control character';
    if (c > 0xff) return 'it contains a character outside Latin-1, which an HTTP header cannot carry';
    if (c > 0x7e) return 'it contains a non-ASCII character';
  }
  return undefined;
}

export function checkKeyText(key: string, source: string): string {
  const trimmed = key.trim();
  const problem = keyProblem(trimmed);
  if (problem !== undefined) {
    throw new UsageError(`invalid API key from ${source}: ${problem}; nothing was sent (a key is one token of visible ASCII characters)`, {
      code: 'invalid_key',
    });
  }
  return trimmed;
}

/** The base URL in force; a usage error naming the fix when there is none. */
export function requireBaseUrl(entry: EnvEntry, env: EnvVars, envName: string): { url: string; source: Target['baseUrlSource'] } {
  const base = resolveBaseUrl(entry, env, envName);
  if (!base) {
    throw new UsageError(`environment "${envName}" has no base URL; set it with: petstore env set ${envName} https://<host>/v1 (or set PETSTORE_BASE_URL)`, {
      code: 'no_base_url',
    });
  }
  return base;
}

export async function resolveTarget(config: ConfigStore, env: EnvVars, flagEnv: string | undefined): Promise<Target> {
  const { envName, envSource, entry } = resolveEnvName(config, env, flagEnv);
  const base = requireBaseUrl(entry, env, envName);
  return { envName, envSource, baseUrl: base.url, baseUrlSource: base.source, ...(await resolveKey(config, envName, entry, env)) };
}

export const ENV_SOURCE_TEXT: Record<Target['envSource'], string> = {
  flag: '--env',
  PETSTORE_ENV: 'PETSTORE_ENV',
  config: 'env use',
  default: 'built-in default',
};

export { maskKey } from '../output/redact.js';
