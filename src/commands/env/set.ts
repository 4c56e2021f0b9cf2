import { ENV_NAME } from '../../config/store.js';
import { checkBaseUrl } from '../../config/target.js';
import type { Factory } from '../../factory.js';
import { UsageError } from '../../errors/errors.js';

export interface EnvSetOptions {
  name: string;
  baseUrl: string;
  warning: string | undefined;
}

export async function command(f: Factory, args: string[]): Promise<void> {
  const name = args[0] ?? '';
  if (!ENV_NAME.test(name)) {
    throw new UsageError(
      `invalid environment name "${name}": use 1 to 32 lower-case letters, digits, "-" or "_", starting with a letter (e.g. staging, eu-west)`,
    );
  }
  const { url, warning } = checkBaseUrl(args[1] ?? '');
  await run(f, { name, baseUrl: url, warning });
}

export async function run(f: Factory, options: EnvSetOptions): Promise<void> {
  const config = await f.config();
  const before = config.env(options.name);
  await config.setBaseUrl(options.name, options.baseUrl);
  const what = before === undefined ? 'Added' : before.baseUrl === undefined ? 'Set' : before.baseUrl === options.baseUrl ? 'Kept' : 'Updated';
  f.info(`${what} environment "${options.name}": ${options.baseUrl}`);
  if (options.warning) f.info(options.warning);
  if (config.currentEnv() !== options.name) f.info(`To make it the default: petstore env use ${options.name}`);
}
