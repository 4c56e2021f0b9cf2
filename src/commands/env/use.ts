import type { Factory } from '../../factory.js';
import { UsageError } from '../../errors/errors.js';

export async function command(f: Factory, args: string[]): Promise<void> {
  await run(f, { name: args[0] ?? '' });
}

export async function run(f: Factory, options: { name: string }): Promise<void> {
  const config = await f.config();
  const entry = config.env(options.name);
  if (!entry) {
    const known = Object.keys(config.envs()).sort().join(', ');
    throw new UsageError(`unknown environment "${options.name}" (known: ${known}); add it first with: petstore env set ${options.name} <baseUrl>`);
  }
  await config.setCurrentEnv(options.name);
  f.info(`Switched to environment "${options.name}"${entry.baseUrl ? ` (${entry.baseUrl})` : ''}.`);
  if (!entry.baseUrl) {
    f.info(`warning: environment "${options.name}" has no base URL yet; set it with: petstore env set ${options.name} https://<host>/v1`);
  }
  if (f.env.PETSTORE_ENV && f.env.PETSTORE_ENV !== options.name) {
    f.info(`note: PETSTORE_ENV=${f.env.PETSTORE_ENV} is set and still overrides the default in this shell`);
  }
}
