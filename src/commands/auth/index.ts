import type { Command } from 'commander';
import { examples, outputOptions, type CommandContext } from '../context.js';

export function registerAuth(program: Command, ctx: CommandContext): void {
  const auth = program.command('auth').description('store, check and remove the API key of an environment');
  examples(auth, [
    'petstore auth login --env staging',
    'echo "$KEY" | petstore auth login',
    'petstore auth status --all',
    'petstore auth logout --env staging',
  ]);

  const login = auth
    .command('login')
    .description('store an API key for an environment in the system keyring (prompted with hidden input, or read from stdin); never a flag')
    .option('--no-verify', 'store the key without checking it with GET /pets?limit=1')
    .option('--insecure-storage', 'store the key in the 0600 config file instead of the system keyring');
  login.action(ctx.lazy(() => import('./login.js')));
  examples(login, [
    'petstore auth login                      # prompts, input hidden',
    'echo "$STAGING_KEY" | petstore auth login --env staging',
    'petstore auth login --env staging --no-verify < key.txt',
    'petstore auth login --insecure-storage   # the config file, not the keyring',
  ]);

  const status = auth
    .command('status')
    .description('show the key in force (masked), where it comes from, and whether the server accepts it; exit 4 if none is usable')
    .option('--all', 'every environment');
  outputOptions(status).action(ctx.lazy(() => import('./status.js')));
  examples(status, ['petstore auth status', 'petstore auth status --env staging -o json', 'petstore auth status --all']);

  const logout = auth.command('logout').description('remove the stored API key of an environment (from the keyring or the config file)');
  logout.action(ctx.lazy(() => import('./logout.js')));
  examples(logout, ['petstore auth logout', 'petstore auth logout --env staging']);
}
