// petstore __complete -- <words...>: the candidates the completion scripts show. Quiet by design: never a
// warning, always exit 0, so a broken config file only means fewer suggestions.

import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { candidates } from '../../completion/candidates.js';
import type { Factory } from '../../factory.js';

async function envNames(f: Factory): Promise<string[]> {
  const [{ configDir }, { BUILTIN_ENVS, ConfigStore, ENV_NAME }] = await Promise.all([import('../../config/paths.js'), import('../../config/store.js')]);
  const names = new Set<string>(BUILTIN_ENVS);
  try {
    const dir = configDir(f.env);
    // Do not create the config folder just to complete a word.
    if (existsSync(dir)) {
      // Only well-formed names: the shells insert them as they are.
      for (const name of Object.keys(new ConfigStore(dir).envs())) if (ENV_NAME.test(name)) names.add(name);
    }
  } catch {
    // Broken or unreadable config: the built-in names are still right.
  }
  return [...names].sort();
}

export async function complete(f: Factory, program: Command, words: readonly string[]): Promise<void> {
  const found = await candidates(program, words, () => envNames(f));
  if (found.length > 0) f.io.stdout.write(`${found.join('\n')}\n`);
}
