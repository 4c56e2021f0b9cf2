// petstore __complete envs: the values the completion scripts ask for. Quiet by design: never a warning,
// always exit 0, so a broken config file only means fewer suggestions.

import { existsSync } from 'node:fs';
import type { Factory } from '../../factory.js';

export async function command(f: Factory, args: string[], _opts: Record<string, unknown>): Promise<void> {
  await run(f, { what: args[0] ?? '' });
}

export async function envNames(f: Factory): Promise<string[]> {
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
  return [...names].sort();
}

export async function run(f: Factory, o: { what: string }): Promise<void> {
  if (o.what !== 'envs') return;
  const names = await envNames(f);
  if (names.length > 0) f.io.stdout.write(`${names.join('\n')}\n`);
}
