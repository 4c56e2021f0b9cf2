import type { Command } from 'commander';
import { examples, outputOptions, type CommandContext } from '../context.js';

export function registerEnv(program: Command, ctx: CommandContext): void {
  const env = program.command('env').description('manage environments (production, staging, your own) and the default one');
  examples(env, [
    'petstore env set staging https://staging.example.com/v1',
    'petstore env use staging',
    'petstore env list',
    'petstore --env production pets list',
  ]);

  const list = env.command('list').alias('ls').description('list environments: current (*), name, base URL, whether a key is stored');
  outputOptions(list).action(ctx.lazy(() => import('./list.js')));
  examples(list, ['petstore env list', 'petstore env list -o json']);

  const use = env
    .command('use')
    .description('make an environment the default for later commands (like kubectl config use-context)')
    .argument('<name>', 'environment name');
  use.action(ctx.lazy(() => import('./use.js')));
  examples(use, [
    'petstore env use staging',
    'PETSTORE_ENV=production petstore pets list   # one call only',
    'petstore --env production pets list   # one call only',
  ]);

  const show = env.command('show').description('show the environment in force, its base URL, and where each setting comes from');
  outputOptions(show).action(ctx.lazy(() => import('./show.js')));
  examples(show, ['petstore env show', 'petstore --env staging env show -o json']);

  const set = env
    .command('set')
    .description('add an environment or change its base URL (https, or http on a loopback host)')
    .argument('<name>', 'environment name: lower-case letters, digits, "-" or "_", starting with a letter')
    .argument('<baseUrl>', 'base URL ending in /v1, e.g. https://api.example.com/v1');
  set.option('--yes', 'when the URL changes, keep the stored key without asking (it will be sent to the new URL)');
  set.action(ctx.lazy(() => import('./set.js')));
  examples(set, ['petstore env set production https://api.example.com/v1', 'petstore env set local http://127.0.0.1:8080/v1']);

  const remove = env
    .command('remove')
    .description('remove an environment and its stored key (a built-in one, production or staging, is reset: no URL, no key)')
    .argument('<name>', 'environment name')
    .option('--yes', 'do not ask for confirmation (needed when not on a terminal)');
  remove.action(ctx.lazy(() => import('./remove.js')));
  // Each line runs without a terminal: without --yes a script is refused (exit 2), a terminal is asked.
  examples(remove, ['petstore env remove local --yes', 'petstore env remove staging --yes   # built in: reset to no URL and no key']);
}
