// petstore __complete envs: the values the completion scripts ask for. Quiet by design: never a warning,
// always exit 0, so a broken config file only means fewer suggestions.

import { existsSync } from 'node:fs';
import type { Factory } from '../../factory.js';

export async function command(f: Factory, args: string[]): Promise<void> {
  if (args[0] !== 'envs') return;
  const [{ configDir }, { BUILTIN_ENVS, ConfigStore, ENV_NAME }] = await Promise.all([import('../../config/paths.js'), import('../../config/store.js')]);
  const names = new Set<string>(BUILTIN_ENVS);
  try {
    const dir = configDir(f.env);
    // Do not create the config folder just to complete a word.
    if (existsSync(dir)) {
      // Only well-formed names: the scripts hand these words to the shell (compgen -W expands them).
      for (const name of Object.keys(new ConfigStore(dir).envs())) if (ENV_NAME.test(name)) names.add(name);
    }
  } catch {
    // Broken or unreadable config: the built-in names are still right.
  }
  f.io.stdout.write(`${[...names].sort().join('\n')}\n`);
}
