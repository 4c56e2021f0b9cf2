import { resolveEnvName } from '../../config/target.js';
import type { Factory } from '../../factory.js';
import { resolveOutput, type Format } from '../../output/format.js';
import { printList, type View } from '../../output/print.js';

export interface EnvRow {
  name: string;
  current: boolean;
  baseUrl: string | null;
  keyStored: boolean;
}

export const envView: View<EnvRow> = {
  columns: [
    { header: 'current', text: (r) => (r.current ? '*' : ''), tone: () => 'green' },
    { header: 'name', text: (r) => r.name },
    { header: 'baseUrl', text: (r) => r.baseUrl ?? '(not set)', tone: (r) => (r.baseUrl ? undefined : 'gray') },
    { header: 'key', text: (r) => (r.keyStored ? 'yes' : 'no') },
  ],
  json: (r) => r,
};

export interface EnvListOptions {
  format: Format;
  /** false: --no-headers. */
  headers?: boolean;
}

export async function command(f: Factory, _args: string[], opts: Record<string, unknown>): Promise<void> {
  await run(f, resolveOutput(opts));
}

export async function run(f: Factory, options: EnvListOptions): Promise<void> {
  const config = await f.config();
  // The one marked is the one a command would use now (--env, PETSTORE_ENV, then "env use").
  const { envName, envSource } = resolveEnvName(config, f.env, f.globals.env);
  const rows: EnvRow[] = Object.entries(config.envs())
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, entry]) => ({ name, current: name === envName, baseUrl: entry.baseUrl ?? null, keyStored: entry.apiKey !== undefined }));
  await printList(f, options.format, envView, rows, options);
  if (envSource === 'PETSTORE_ENV') f.info(`note: PETSTORE_ENV=${envName} overrides the default environment (${config.currentEnv()})`);
  if (f.env.PETSTORE_BASE_URL) f.info(`note: PETSTORE_BASE_URL=${f.env.PETSTORE_BASE_URL} overrides the base URL of every environment`);
  if (f.env.PETSTORE_API_KEY) f.info('note: PETSTORE_API_KEY is set and overrides the stored key of every environment');
}
