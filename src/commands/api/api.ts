import { readFile } from 'node:fs/promises';
import { STATUS_CODES } from 'node:http';
import { text as streamText } from 'node:stream/consumers';
import { MalformedResponseError, UsageError } from '../../errors/errors.js';
import type { Factory } from '../../factory.js';
import type { ApiResponse, HttpMethod } from '../../transport/exchange.js';
import { errorForResponse } from '../../api/errors.js';
import { parseJson, stringifyJson } from '../../json/int64.js';
import { renderJson } from '../../output/json.js';
import { terminalJson } from '../../output/json-terminal.js';
import type { Query } from '../../output/query.js';
import { escapeControl } from '../../output/text.js';
import { storageProblem } from '../../io/storage-problem.js';

/** Headers the user may not set: the key and the host are ours, the rest belong to the HTTP layer. */
const REFUSED_HEADERS: Readonly<Record<string, string>> = {
  authorization: 'the API key of the environment is always sent as the Authorization header; use PETSTORE_API_KEY or "petstore auth login" to change it',
  host: 'the host is always the one of the configured base URL',
  'proxy-authorization': 'proxy credentials are not sent by petstore api',
  expect: 'it is not supported',
  ...Object.fromEntries(
    ['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer'].map((h) => [h, 'it is set by the HTTP layer']),
  ),
};

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export interface ApiOptions {
  /** What the user typed: a path below the base URL (with an optional query) or an absolute URL under it. */
  path: string;
  method: HttpMethod;
  /** Validated JSON text, sent as is (exact digits, the user's formatting). */
  body: string | undefined;
  headers: Record<string, string>;
  include: boolean;
  query?: Query | undefined;
}

export function parseHeaders(raw: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const item of raw) {
    const colon = item.indexOf(':');
    // Never echo the value: it may be a secret.
    if (colon <= 0) throw new UsageError(`invalid -H/--header: expected 'Name: value' (e.g. -H 'X-Request-Id: 42')`);
    const name = item.slice(0, colon).trim();
    const value = item.slice(colon + 1).trim();
    if (!HEADER_NAME.test(name)) throw new UsageError(`invalid -H/--header name "${name}": expected 'Name: value' with a name of letters, digits and -`);
    if (/[\r\n\0]/.test(value)) throw new UsageError(`invalid -H/--header "${name}": the value must not contain line breaks`);
    const key = name.toLowerCase();
    const why = REFUSED_HEADERS[key];
    if (why !== undefined) throw new UsageError(`refusing -H/--header "${name}": ${why}`);
    headers[key] = headers[key] === undefined ? value : `${headers[key]}, ${value}`;
  }
  return headers;
}

export function checkJsonBody(text: string, source: string): string {
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  if (body.trim().length === 0) throw new UsageError(`${source} is empty: expected a JSON request body`);
  try {
    parseJson(body);
  } catch (error) {
    throw new UsageError(`${source} is not valid JSON: ${(error as Error).message.split('\n')[0]}`);
  }
  return body;
}

async function readInput(f: Factory, file: string): Promise<string> {
  if (file === '-') return checkJsonBody(await streamText(f.io.stdin), '--input - (stdin)');
  const text = await readFile(file, 'utf8').catch((error: unknown) => {
    throw new UsageError(`cannot read --input file "${file}": ${storageProblem(error)}`);
  });
  return checkJsonBody(text, `--input file "${file}"`);
}

function isUnder(pathname: string, basePath: string): boolean {
  return basePath === '' || pathname === basePath || pathname.startsWith(`${basePath}/`);
}

type ResolvedPath = { path: string; note: string | undefined };

// What was typed as a path below the base URL (a repeat of its path dropped with a note): the key goes to no other host.
export function resolveApiPath(input: string, baseUrl: string, envName = 'the current environment'): ResolvedPath {
  const base = new URL(baseUrl);
  const basePath = base.pathname.replace(/\/+$/, '');
  const shown = `${base.origin}${basePath}`;
  const resolved: ResolvedPath =
    /^[a-z][a-z0-9+.-]*:/i.test(input) || input.startsWith('//')
      ? { path: pathOfUrl(input, base, basePath, envName), note: undefined }
      : relativePath(input, basePath);
  // Whatever was typed (.., %2e%2e, backslashes), the URL actually built must stay under the base.
  let final: URL;
  try {
    final = new URL(baseUrl.replace(/\/+$/, '') + resolved.path);
  } catch {
    throw new UsageError(`invalid path "${input}": pass a path such as /pets`);
  }
  if (final.origin !== base.origin || !isUnder(final.pathname, basePath)) {
    throw new UsageError(`refusing path "${input}": it resolves to ${final.origin}${final.pathname}, outside the base URL ${shown}`);
  }
  return resolved;
}

function pathOfUrl(input: string, base: URL, basePath: string, envName: string): string {
  const shown = `${base.origin}${basePath}`;
  let url: URL;
  try {
    url = new URL(input.startsWith('//') ? `${base.protocol}${input}` : input);
  } catch {
    throw new UsageError(`invalid URL "${input}": pass a path such as /pets, or a full URL under ${shown}`);
  }
  if (url.origin !== base.origin) {
    throw new UsageError(
      `refusing to send the API key of environment "${envName}" to ${url.protocol}//${url.host}: petstore api only talks to the configured base URL ${shown}; pass a path such as /pets`,
    );
  }
  if (url.username || url.password) throw new UsageError(`invalid URL "${url.origin}/...": it must not contain credentials`);
  if (!isUnder(url.pathname, basePath)) {
    throw new UsageError(`refusing ${url.origin}${url.pathname}: it is not under the base URL ${shown} of environment "${envName}"; pass a path such as /pets`);
  }
  return url.pathname.slice(basePath.length) + url.search;
}

function relativePath(input: string, basePath: string): ResolvedPath {
  let path = input.replace(/#.*$/s, '');
  if (!path.startsWith('/')) path = `/${path}`;
  if (basePath === '' || !(path === basePath || path.startsWith(`${basePath}/`) || path.startsWith(`${basePath}?`))) return { path, note: undefined };
  const stripped = path.slice(basePath.length);
  const note = `note: the base URL already ends in ${basePath}; sending ${path.split('?')[0]} as ${stripped.split('?')[0] || '/'} (give the full URL to send it literally)`;
  return { path: stripped.startsWith('/') ? stripped : `/${stripped}`, note };
}

export async function command(f: Factory, args: string[], opts: Record<string, unknown>): Promise<void> {
  const path = args[0];
  if (path === undefined) throw new UsageError('missing <path>: e.g. petstore api /pets');
  const data = opts.data as string | undefined;
  const input = opts.input as string | undefined;
  if (data !== undefined && input !== undefined) throw new UsageError('use either -d/--data or --input for the request body, not both');
  // -X was parsed by parseMethod as commander read it (./index.ts).
  const method = (opts.method as HttpMethod | undefined) ?? (data !== undefined || input !== undefined ? 'POST' : 'GET');
  const headers = parseHeaders((opts.header as string[] | undefined) ?? []);
  const body = data !== undefined ? checkJsonBody(data, '-d/--data') : input !== undefined ? await readInput(f, input) : undefined;
  await run(f, { path, method, body, headers, include: opts.include === true, query: opts.query as Query | undefined });
}

function writeHead(f: Factory, res: ApiResponse): void {
  const reason = STATUS_CODES[res.status];
  const lines = [`HTTP ${res.status}${reason ? ` ${reason}` : ''}`];
  for (const [name, value] of Object.entries(res.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) lines.push(`${name}: ${f.redactHeader(name, v)}`);
  }
  const shown = f.io.stderrIsTTY ? lines.map((l) => escapeControl(l)) : lines;
  f.io.stderr.write(`${shown.join('\n')}\n\n`);
}

/** Piped: the body's bytes as they came (a key echoed in them masked), or the --query result. On a terminal: escaped, and JSON pretty and coloured. */
async function writeBody(f: Factory, res: ApiResponse, query: Query | undefined): Promise<void> {
  if (query) {
    if (!res.isJson)
      throw new MalformedResponseError(
        `--query needs a JSON response; HTTP ${res.status} came with ${res.text.length > 0 ? 'a body that is not JSON' : 'no body'}`,
      );
    const json = f.redact(renderJson(query.search(res.json), f.io.stdoutIsTTY));
    f.io.stdout.write(f.io.stdoutIsTTY ? await terminalJson(json, f.io.colorStdout) : json);
    return;
  }
  if (res.text.length === 0) return;
  if (!f.io.stdoutIsTTY) f.io.stdout.write(f.redact(res.text));
  else if (res.isJson) f.io.stdout.write(`${await terminalJson(f.redact(stringifyJson(res.json, 2)), f.io.colorStdout)}\n`);
  else f.io.stdout.write(`${escapeControl(f.redact(res.text), 'text')}${res.text.endsWith('\n') ? '' : '\n'}`);
}

export async function run(f: Factory, o: ApiOptions): Promise<void> {
  const target = await f.target();
  const { path, note } = resolveApiPath(o.path, target.baseUrl, target.envName);
  if (note) f.info(note);
  const client = await f.client();
  const res = await client.send({
    method: o.method,
    path,
    ...(o.body !== undefined ? { rawBody: o.body } : {}),
    ...(Object.keys(o.headers).length > 0 ? { headers: o.headers } : {}),
  });
  if (o.include) writeHead(f, res);
  await writeBody(f, res, o.query);
  if (res.status < 200 || res.status > 299) throw errorForResponse(res, client.ctx);
}
