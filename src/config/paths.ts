import { homedir } from 'node:os';
import { join } from 'node:path';
import type { EnvVars } from '../io/io.js';

/** PETSTORE_CONFIG_DIR, else $XDG_CONFIG_HOME/petstore, else ~/.config/petstore (%APPDATA%\petstore on Windows). */
export function configDir(env: EnvVars): string {
  if (env.PETSTORE_CONFIG_DIR) return env.PETSTORE_CONFIG_DIR;
  if (process.platform === 'win32' && env.APPDATA) return join(env.APPDATA, 'petstore');
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  return join(base, 'petstore');
}

/**
 * Where petstore keeps what it must remember between runs but is not configuration (the seeding
 * journals): PETSTORE_STATE_DIR, else $XDG_STATE_HOME/petstore, else ~/.local/state/petstore
 * (%LOCALAPPDATA%\petstore on Windows).
 */
export function stateDir(env: EnvVars): string {
  if (env.PETSTORE_STATE_DIR) return env.PETSTORE_STATE_DIR;
  if (process.platform === 'win32' && env.LOCALAPPDATA) return join(env.LOCALAPPDATA, 'petstore');
  const base = env.XDG_STATE_HOME || join(env.HOME || homedir(), '.local', 'state');
  return join(base, 'petstore');
}
