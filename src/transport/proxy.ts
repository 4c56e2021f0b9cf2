// Proxy settings from the (injected) environment: HTTPS_PROXY, HTTP_PROXY and
// NO_PROXY, upper or lower case, applied through undici's EnvHttpProxyAgent.
//
// Rules (the same as undici's EnvHttpProxyAgent, curl and most tools):
// - the lower-case variable wins over the upper-case one when both are set;
//   an empty value counts as unset;
// - https URLs use HTTPS_PROXY, falling back to HTTP_PROXY; http URLs use HTTP_PROXY;
// - NO_PROXY is a comma- or space-separated list of host names, suffixes
//   (example.com and .example.com match sub.example.com), *.example.com,
//   host:port entries and "*" (no proxy at all). Loopback addresses are NOT
//   exempt unless listed (NO_PROXY=127.0.0.1,localhost).
// - a proxy URL without a scheme ("proxy:3128") means http://proxy:3128.

import { UsageError } from '../errors/errors.js';
import type { EnvVars } from '../io/io.js';

export interface ProxyEndpoint {
  /** The proxy URL as undici gets it (credentials included). */
  uri: string;
  /** The variable it came from, e.g. "HTTPS_PROXY" or "http_proxy". */
  source: string;
}

export interface ProxySettings {
  http: ProxyEndpoint | undefined;
  /** Falls back to http (undici's rule) when no HTTPS_PROXY is set. */
  https: ProxyEndpoint | undefined;
  noProxy: string;
  noProxySource: string | undefined;
}

function pick(env: EnvVars, name: string): { value: string; source: string } | undefined {
  const lower = env[name.toLowerCase()];
  if (lower !== undefined && lower.trim() !== '') return { value: lower.trim(), source: name.toLowerCase() };
  const upper = env[name];
  if (upper !== undefined && upper.trim() !== '') return { value: upper.trim(), source: name };
  return undefined;
}

function endpoint(env: EnvVars, name: string): ProxyEndpoint | undefined {
  const found = pick(env, name);
  if (!found) return undefined;
  const raw = /^[a-z][a-z0-9+.-]*:\/\//i.test(found.value) ? found.value : `http://${found.value}`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`invalid ${found.source}: "${redactProxyText(found.value)}" is not a URL; expected e.g. http://proxy.example.com:3128`, {
      code: 'invalid_proxy',
    });
  }
  if (!['http:', 'https:', 'socks:', 'socks5:'].includes(url.protocol)) {
    throw new UsageError(
      `invalid ${found.source} "${redactProxyUrl(url.href)}": the scheme must be http, https or socks5; expected e.g. http://proxy.example.com:3128`,
      { code: 'invalid_proxy' },
    );
  }
  return { uri: url.href, source: found.source };
}

/** The proxy settings of an environment, or undefined when no proxy variable is set. */
export function proxySettingsFromEnv(env: EnvVars): ProxySettings | undefined {
  const http = endpoint(env, 'HTTP_PROXY');
  const https = endpoint(env, 'HTTPS_PROXY') ?? http;
  if (!http && !https) return undefined;
  const no = pick(env, 'NO_PROXY');
  return { http, https, noProxy: no?.value ?? '', noProxySource: no?.source };
}

/** A proxy URL fit for messages: the user and password replaced with ****. */
export function redactProxyUrl(uri: string): string {
  try {
    const url = new URL(uri);
    if (!url.username && !url.password) return url.href.replace(/\/$/, '');
    url.username = '****';
    url.password = '';
    return url.href.replace(/\/$/, '');
  } catch {
    return redactProxyText(uri);
  }
}

/** Best effort for text that is not a URL: hides anything before an "@". */
function redactProxyText(text: string): string {
  return text.replace(/^([a-z][a-z0-9+.-]*:\/\/)?[^@/]*@/i, (_m, scheme: string | undefined) => `${scheme ?? ''}****@`);
}

/** The user and password of a proxy URL (decoded and raw), to scrub them from any text. */
export function proxySecrets(settings: ProxySettings | undefined): string[] {
  const secrets = new Set<string>();
  for (const e of [settings?.http, settings?.https]) {
    if (!e) continue;
    const url = new URL(e.uri);
    for (const part of [url.username, url.password]) {
      if (!part) continue;
      secrets.add(part);
      try {
        secrets.add(decodeURIComponent(part));
      } catch {
        // Not percent-encoded text: the raw form is enough.
      }
    }
  }
  return [...secrets].filter((s) => s.length > 0);
}

interface NoProxyEntry {
  hostname: string;
  port: number;
  wildcard: boolean;
}

function parseNoProxy(value: string): NoProxyEntry[] {
  const entries: NoProxyEntry[] = [];
  for (const entry of value.split(/[,\s]/)) {
    if (!entry) continue;
    let hostname: string;
    let port = 0;
    const v6 = /^\[(.+)\]:(\d+)$/.exec(entry);
    if (v6) {
      hostname = v6[1]!;
      port = Number.parseInt(v6[2]!, 10);
    } else {
      const unbracketed = entry.replace(/^\[(.+)\]$/, '$1');
      const parsed = (unbracketed.match(/:/g) ?? []).length === 1 ? /^(.+):(\d+)$/.exec(unbracketed) : null;
      hostname = parsed ? parsed[1]! : unbracketed;
      port = parsed ? Number.parseInt(parsed[2]!, 10) : 0;
    }
    entries.push({
      hostname: hostname
        .replace(/^\*?\./, '')
        .replace(/^(.+)\.$/, '$1')
        .toLowerCase(),
      port,
      wildcard: entry.startsWith('*'),
    });
  }
  return entries;
}

/**
 * The proxy a request to `url` goes through, or undefined when it goes direct.
 * Mirrors EnvHttpProxyAgent's choice (for messages and debug lines; undici decides).
 */
export function proxyFor(settings: ProxySettings | undefined, url: string): ProxyEndpoint | undefined {
  if (!settings) return undefined;
  const u = new URL(url);
  let hostname = u.hostname.replace(/^\[(.+)\]$/, '$1').toLowerCase();
  if (hostname.length > 1 && hostname.endsWith('.')) hostname = hostname.slice(0, -1);
  const port = Number.parseInt(u.port, 10) || (u.protocol === 'https:' ? 443 : 80);
  for (const entry of parseNoProxy(settings.noProxy)) {
    if (entry.port && entry.port !== port) continue;
    if (entry.hostname === '*') return undefined;
    if (!entry.wildcard && hostname === entry.hostname) return undefined;
    if (hostname.endsWith(`.${entry.hostname}`)) return undefined;
  }
  return u.protocol === 'https:' ? settings.https : settings.http;
}
