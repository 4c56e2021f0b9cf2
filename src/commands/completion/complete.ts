// petstore __complete envs: values the completion scripts ask for. Never a warning, always exit 0.

import { existsSync } from 'node:fs';
import { configDir } from '../../config/paths.js';
import { BUILTIN_ENVS, ConfigStore, ENV_NAME } from '../../config/store.js';
import type { Factory } from '../../factory.js';

export async function command(f: Factory, args: string[]): Promise<void> {
  if (args[0] !== 'envs') return;
  const names = envNames(f);
  if (names.length > 0) f.io.stdout.write(`${names.join('\n')}\n`);
}

/** Environment names: the built-in ones plus those in the config file, sorted. */
function envNames(f: Factory): string[] {
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
  return [...names].sort();
}
