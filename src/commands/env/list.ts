import { hasStoredKey } from '../../config/store.js';
import { ENV_SOURCE_TEXT, resolveEnvName, type Target } from '../../config/target.js';
import type { Factory } from '../../factory.js';
import { resolveOutput, type Format, type OutputOptions } from '../../output/format.js';
import { printList, type View } from '../../output/print.js';

export interface EnvRow {
  name: string;
  current: boolean;
  currentSource: Target['envSource'] | null;
  baseUrl: string | null;
  keyStored: boolean;
}

export function envView(format: Format): View<EnvRow> {
  return {
    columns: [
      { header: 'current', text: (r) => (format === 'csv' ? String(r.current) : r.current ? '*' : ''), tone: () => 'green' },
      { header: 'name', text: (r) => r.name },
      { header: 'baseUrl', text: (r) => r.baseUrl ?? '(not set)', tone: (r) => (r.baseUrl ? undefined : 'gray') },
      { header: 'key', text: (r) => (r.keyStored ? 'yes' : 'no') },
    ],
    json: (r) => r,
  };
}

export async function command(f: Factory, _args: string[], opts: Record<string, unknown>): Promise<void> {
  await run(f, resolveOutput(opts));
}

export async function run(f: Factory, options: OutputOptions): Promise<void> {
  const config = await f.config();
  const { envName, envSource } = resolveEnvName(config, f.env, f.globals.env);
  const rows: EnvRow[] = Object.entries(config.envs())
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, entry]) => ({
      name,
      current: name === envName,
      currentSource: name === envName ? envSource : null,
      baseUrl: entry.baseUrl ?? null,
      keyStored: hasStoredKey(entry),
    }));
  await printList(f, options.format, envView(options.format), rows, options);
  if (options.format === 'table') {
    const defaultEnv = config.currentEnv();
    const overridden = defaultEnv !== envName ? `; the default is ${defaultEnv}` : '';
    f.info(`current: ${envName} (from ${ENV_SOURCE_TEXT[envSource]}${overridden})`);
  }
  if (f.env.PETSTORE_BASE_URL) f.info(`note: PETSTORE_BASE_URL=${f.env.PETSTORE_BASE_URL} overrides the base URL of every environment`);
  if (f.env.PETSTORE_API_KEY) f.info('note: PETSTORE_API_KEY is set and overrides the stored key of every environment');
}
