import { homedir } from 'node:os';
import { join } from 'node:path';
import type { EnvVars } from '../io/io.js';

function place(env: EnvVars, own: string | undefined, windows: string | undefined, xdg: string | undefined, underHome: string[]): string {
  if (own) return own;
  if (process.platform === 'win32' && windows) return join(windows, 'petstore');
  return join(xdg || join(env.HOME || homedir(), ...underHome), 'petstore');
}

/** PETSTORE_CONFIG_DIR, else $XDG_CONFIG_HOME/petstore, else ~/.config/petstore (%APPDATA%\petstore on Windows). */
export function configDir(env: EnvVars): string {
  return place(env, env.PETSTORE_CONFIG_DIR, env.APPDATA, env.XDG_CONFIG_HOME, ['.config']);
}

/** State that is not configuration (seeding journals): PETSTORE_STATE_DIR, else $XDG_STATE_HOME/petstore, else ~/.local/state/petstore. */
export function stateDir(env: EnvVars): string {
  return place(env, env.PETSTORE_STATE_DIR, env.LOCALAPPDATA, env.XDG_STATE_HOME, ['.local', 'state']);
}
