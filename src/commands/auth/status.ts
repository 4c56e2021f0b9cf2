import { KeyringUnavailableError } from '../../config/keyring.js';
import type { ConfigStore } from '../../config/store.js';
import { checkKeyText, keyProblem, maskKey, requireBaseUrl, resolveEnvName, resolveKey } from '../../config/target.js';
import { AuthError, CliError, InterruptedError, noApiKeyError, refusedKeyFix, UsageError } from '../../errors/errors.js';
import type { Factory } from '../../factory.js';
import { describeResponse } from '../../api/errors.js';
import { probe } from '../../api/pets.js';
import { resolveOutput, type Format, type OutputOptions } from '../../output/format.js';
import { printList, printRecord, type View } from '../../output/print.js';
import type { Tone } from '../../output/table.js';

export interface AuthStatusRow {
  env: string;
  current: boolean;
  baseUrl: string | null;
  keySource: 'PETSTORE_API_KEY' | 'config' | 'keyring' | null;
  configFile: string;
  key: string | null;
  server: 'accepted' | 'rejected' | 'unknown' | 'not_checked';
  detail: string | null;
}

const TONE: Record<AuthStatusRow['server'], Tone> = { accepted: 'green', rejected: 'red', unknown: 'yellow', not_checked: 'gray' };

export function authStatusView(format: Format): View<AuthStatusRow> {
  const csv = format === 'csv';
  return {
    columns: [
      { header: 'env', text: (r) => r.env + (!csv && r.current ? ' *' : '') },
      ...(csv ? [{ header: 'current', text: (r: AuthStatusRow) => String(r.current) }] : []),
      { header: 'baseUrl', text: (r) => r.baseUrl ?? '(not set)' },
      { header: 'keySource', text: (r) => (r.keySource === 'config' ? r.configFile : (r.keySource ?? 'none')) },
      { header: 'key', text: (r) => r.key ?? '' },
      {
        header: 'server',
        text: (r) => (r.server === 'not_checked' ? 'not checked' : r.server) + (r.detail ? ` (${r.detail})` : ''),
        tone: (r) => TONE[r.server],
      },
    ],
    json: (r) => r,
  };
}

export async function command(f: Factory, _args: string[], opts: Record<string, unknown>): Promise<void> {
  const output = resolveOutput(opts);
  if (opts.all === true && f.globals.env !== undefined) throw new UsageError('--all and --env exclude each other: give one');
  await run(f, { all: opts.all === true, ...output });
}

async function check(f: Factory, target: Parameters<Factory['clientFor']>[0], key: string): Promise<Pick<AuthStatusRow, 'server' | 'detail'>> {
  const client = await f.clientFor(target, key);
  try {
    const res = await probe(client);
    if (res.status >= 200 && res.status < 300) return { server: 'accepted', detail: null };
    return { server: res.status === 401 || res.status === 403 ? 'rejected' : 'unknown', detail: describeResponse(res).message };
  } catch (error) {
    if (error instanceof InterruptedError || !(error instanceof CliError)) throw error;
    return { server: 'unknown', detail: error.message };
  }
}

async function statusOf(f: Factory, config: ConfigStore, envName: string, current: string, all: boolean): Promise<AuthStatusRow> {
  const entry = config.env(envName) ?? {};
  // --all: a keyring that cannot be read is a row saying so; one environment: the error (exit 4).
  let problem: string | undefined;
  const { apiKey: key, keySource } = await resolveKey(config, envName, entry, f.env).catch((error: unknown) => {
    if (!all || !(error instanceof KeyringUnavailableError)) throw error;
    problem = error.message;
    return { apiKey: undefined, keySource: 'keyring' as const };
  });
  const row: AuthStatusRow = {
    env: envName,
    current: envName === current,
    baseUrl: null,
    keySource: keySource ?? null,
    configFile: config.path,
    key: key ? maskKey(key) : null,
    server: 'not_checked',
    detail: problem ?? (key ? null : 'no key'),
  };
  let baseUrl: string;
  try {
    baseUrl = requireBaseUrl(entry, f.env, envName).url;
  } catch (error) {
    // One environment: no URL is a usage error (exit 2) naming the "env set" command. --all: a row saying so.
    if (!all || !(error instanceof UsageError)) throw error;
    row.detail = entry.baseUrl || f.env.PETSTORE_BASE_URL ? error.message : 'no base URL';
    return row;
  }
  row.baseUrl = baseUrl;
  if (key && keyProblem(key) !== undefined) {
    const source = keySource === 'PETSTORE_API_KEY' ? 'PETSTORE_API_KEY' : `the key stored for environment "${envName}"`;
    // One environment: a usage error (exit 2), nothing sent. --all: a row saying so.
    if (!all) checkKeyText(key, source);
    row.key = '****';
    row.detail = `invalid API key from ${source}: ${keyProblem(key)}`;
    return row;
  }
  if (key) Object.assign(row, await check(f, { envName, baseUrl, keySource }, key));
  return row;
}

export async function run(f: Factory, options: OutputOptions & { all: boolean }): Promise<void> {
  const config = await f.config();
  const { envName: current } = resolveEnvName(config, f.env, f.globals.env);
  if (!options.all) {
    const row = await statusOf(f, config, current, current, false);
    await printRecord(f, options.format, authStatusView(options.format), row, options);
    if (row.key === null) throw noApiKeyError(current);
    if (row.server === 'rejected') {
      throw new AuthError(`the server rejected the API key for "${current}": ${row.detail}`, refusedKeyFix(current, row.keySource ?? undefined));
    }
    return;
  }
  const rows: AuthStatusRow[] = [];
  for (const name of Object.keys(config.envs()).sort()) rows.push(await statusOf(f, config, name, current, true));
  await printList(f, options.format, authStatusView(options.format), rows, options);
  const rejected = rows.filter((r) => r.server === 'rejected');
  const first = rejected[0];
  if (first) {
    throw new AuthError(`the server rejected the API key for ${rejected.map((r) => r.env).join(', ')}`, refusedKeyFix(first.env, first.keySource ?? undefined));
  }
  if (!rows.some((r) => r.server === 'accepted' || r.server === 'unknown')) {
    throw new AuthError('no usable API key in any environment', { code: 'no_api_key', hint: `petstore auth login --env ${current}` });
  }
}
