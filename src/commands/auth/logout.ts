import { resolveEnvName } from '../../config/target.js';
import type { Factory } from '../../factory.js';

/** No options: the command is its run function. */
export async function command(f: Factory): Promise<void> {
  const config = await f.config();
  const { envName, entry } = resolveEnvName(config, f.env, f.globals.env);
  if (await config.deleteKey(envName)) {
    f.info(`Removed the stored API key for ${envName} from ${entry.keyring !== undefined ? 'the system keyring' : config.path}.`);
  } else {
    f.info(`No API key stored for ${envName}; nothing to remove.`);
  }
  if (f.env.PETSTORE_API_KEY) f.info('note: PETSTORE_API_KEY is set and still applies until you unset it');
}
