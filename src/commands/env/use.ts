import type { Factory } from '../../factory.js';
import { UsageError } from '../../errors/errors.js';

export async function command(f: Factory, args: string[]): Promise<void> {
  const name = args[0] ?? '';
  const config = await f.config();
  const entry = config.env(name);
  if (!entry) {
    const known = Object.keys(config.envs()).sort().join(', ');
    throw new UsageError(`unknown environment "${name}" (known: ${known}); add it first with: petstore env set ${name} <baseUrl>`);
  }
  await config.setCurrentEnv(name);
  f.info(`Switched to environment "${name}"${entry.baseUrl ? ` (${entry.baseUrl})` : ''}.`);
  if (!entry.baseUrl) f.info(`warning: environment "${name}" has no base URL yet; set it with: petstore env set ${name} https://<host>/v1`);
  if (f.env.PETSTORE_ENV && f.env.PETSTORE_ENV !== name) {
    f.info(`note: PETSTORE_ENV=${f.env.PETSTORE_ENV} is set and still overrides the default in this shell`);
  }
}
