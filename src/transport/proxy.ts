// Proxy settings from the (injected) environment, with the rules of undici's EnvHttpProxyAgent and curl:
// lower case wins, empty is unset, https falls back to HTTP_PROXY, NO_PROXY lists hosts, suffixes, host:port
// and "*" (loopback is not exempt unless listed), and "proxy:3128" means http://proxy:3128.

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
  https: ProxyEndpoint | undefined;
  noProxy: string;
}

function pick(env: EnvVars, name: string): { value: string; source: string } | undefined {
  for (const source of [name.toLowerCase(), name]) {
    const value = env[source]?.trim();
    if (value) return { value, source };
  }
  return undefined;
}

function endpoint(env: EnvVars, name: string): ProxyEndpoint | undefined {
  const found = pick(env, name);
  if (!found) return undefined;
  const example = 'expected e.g. http://proxy.example.com:3128';
  const url = URL.parse(/^[a-z][a-z0-9+.-]*:\/\//i.test(found.value) ? found.value : `http://${found.value}`);
  if (!url) {
    throw new UsageError(`invalid ${found.source}: "${redactProxyText(found.value)}" is not a URL; ${example}`, { code: 'invalid_proxy' });
  }
  if (!['http:', 'https:', 'socks:', 'socks5:'].includes(url.protocol)) {
    throw new UsageError(`invalid ${found.source} "${redactProxyUrl(url.href)}": the scheme must be http, https or socks5; ${example}`, {
      code: 'invalid_proxy',
    });
  }
  return { uri: url.href, source: found.source };
}

/** The proxy settings of an environment, or undefined when no proxy variable is set. */
export function proxySettingsFromEnv(env: EnvVars): ProxySettings | undefined {
  const http = endpoint(env, 'HTTP_PROXY');
  const https = endpoint(env, 'HTTPS_PROXY') ?? http;
  if (!http && !https) return undefined;
  return { http, https, noProxy: pick(env, 'NO_PROXY')?.value ?? '' };
}

/** A proxy URL fit for messages: the user and password replaced with ****. */
export function redactProxyUrl(uri: string): string {
  const url = URL.parse(uri);
  if (!url) return redactProxyText(uri);
  if (url.username || url.password) {
    url.username = '****';
    url.password = '';
  }
  return url.href.replace(/\/$/, '');
}

/** Best effort for text that is not a URL: hides anything before an "@". */
function redactProxyText(text: string): string {
  return text.replace(/^([a-z][a-z0-9+.-]*:\/\/)?[^@/]*@/i, (_m, scheme: string | undefined) => `${scheme ?? ''}****@`);
}

/** The user and password of a proxy URL (decoded and raw), to scrub them from any text. */
export function proxySecrets(settings: ProxySettings | undefined): string[] {
  const secrets = new Set<string>();
  for (const e of [settings?.http, settings?.https]) {
    const url = e && new URL(e.uri);
    for (const part of url ? [url.username, url.password] : []) {
      if (!part) continue;
      secrets.add(part);
      try {
        secrets.add(decodeURIComponent(part));
      } catch {
        // Not percent-encoded text: the raw form is enough.
      }
    }
  }
  return [...secrets];
}

/** The proxy a request to `url` goes through, or undefined when it goes direct: EnvHttpProxyAgent's choice, for messages. */
export function proxyFor(settings: ProxySettings | undefined, url: string): ProxyEndpoint | undefined {
  if (!settings) return undefined;
  const u = new URL(url);
  let hostname = u.hostname.replace(/^\[(.+)\]$/, '$1').toLowerCase();
  if (hostname.length > 1 && hostname.endsWith('.')) hostname = hostname.slice(0, -1);
  const port = Number.parseInt(u.port, 10) || (u.protocol === 'https:' ? 443 : 80);
  for (const entry of settings.noProxy.split(/[,\s]/).filter((e) => e !== '')) {
    const { name, port: entryPort } = noProxyEntry(entry);
    if (entryPort && entryPort !== port) continue;
    if (name === '*' || (!entry.startsWith('*') && hostname === name) || hostname.endsWith(`.${name}`)) return undefined;
  }
  return u.protocol === 'https:' ? settings.https : settings.http;
}

/** A NO_PROXY entry: "[v6]:port", "[v6]", "host:port" (one colon), or a name or address alone. */
function noProxyEntry(entry: string): { name: string; port: number } {
  const unbracketed = entry.replace(/^\[(.+)\]$/, '$1');
  const m = /^\[(.+)\]:(\d+)$/.exec(entry) ?? ((unbracketed.match(/:/g) ?? []).length === 1 ? /^(.+):(\d+)$/.exec(unbracketed) : null);
  const name = (m ? m[1]! : unbracketed).replace(/^\*?\./, '').replace(/^(.+)\.$/, '$1');
  return { name: name.toLowerCase(), port: m ? Number.parseInt(m[2]!, 10) : 0 };
}
