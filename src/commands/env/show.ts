import { hasStoredKey } from '../../config/store.js';
import { ENV_SOURCE_TEXT, maskKey, resolveBaseUrl, resolveEnvName, type Target } from '../../config/target.js';
import type { Factory } from '../../factory.js';
import { resolveOutput, type OutputOptions } from '../../output/format.js';
import { printRecord, type View } from '../../output/print.js';

export interface EnvShowRow {
  name: string;
  nameSource: Target['envSource'];
  baseUrl: string | null;
  baseUrlSource: Target['baseUrlSource'] | null;
  keyStored: boolean;
  key: string | null;
  keyFromEnv: boolean;
  configFile: string;
}

export const envShowView: View<EnvShowRow> = {
  columns: [
    { header: 'name', text: (r) => r.name },
    { header: 'from', text: (r) => ENV_SOURCE_TEXT[r.nameSource] },
    { header: 'baseUrl', text: (r) => r.baseUrl ?? '(not set)', tone: (r) => (r.baseUrl ? undefined : 'gray') },
    { header: 'baseUrlFrom', text: (r) => (r.baseUrlSource === null ? '' : r.baseUrlSource === 'config' ? 'config' : 'PETSTORE_BASE_URL') },
    { header: 'key', text: (r) => (r.keyStored ? `yes (${r.key})` : 'no') + (r.keyFromEnv ? ', PETSTORE_API_KEY set' : '') },
  ],
  json: (r) => r,
};

export async function command(f: Factory, _args: string[], opts: Record<string, unknown>): Promise<void> {
  await run(f, resolveOutput(opts));
}

export async function run(f: Factory, options: OutputOptions): Promise<void> {
  const config = await f.config();
  const { envName, envSource, entry } = resolveEnvName(config, f.env, f.globals.env);
  const base = resolveBaseUrl(entry, f.env, envName);
  const row: EnvShowRow = {
    name: envName,
    nameSource: envSource,
    baseUrl: base?.url ?? null,
    baseUrlSource: base?.source ?? null,
    keyStored: hasStoredKey(entry),
    // A key in the keyring is not read just to show its end.
    key: entry.apiKey !== undefined ? maskKey(entry.apiKey) : entry.keyring !== undefined ? 'in the system keyring' : null,
    keyFromEnv: Boolean(f.env.PETSTORE_API_KEY),
    configFile: config.path,
  };
  await printRecord(f, options.format, envShowView, row, options);
  if (!base) f.info(`note: environment "${envName}" has no base URL; set it with: petstore env set ${envName} https://<host>/v1`);
}
