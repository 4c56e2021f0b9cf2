import type { Command } from 'commander';
import { examples, outputOptions, type CommandContext } from '../context.js';

export function registerPets(program: Command, ctx: CommandContext): void {
  const pets = program.command('pets').description('list, add and fetch pets');

  const list = pets
    .command('list')
    .description('list pets (GET /pets)')
    .option('--limit <n>', 'how many pets to return, 1 to 100 (server default 20)')
    .option('--status <status>', 'only pets with this status: available|pending|sold');
  outputOptions(list).action(ctx.lazy(() => import('./list.js')));
  examples(list, [
    'petstore pets list',
    'petstore pets list --status available --limit 100',
    'petstore pets list -o json | jq -r \'.[].name\'',
    'petstore pets list --env staging -o csv > pets.csv',
  ]);

  const add = pets
    .command('add')
    .description('add a pet (POST /pets) and print it with its new id')
    .requiredOption('--name <name>', 'the pet\'s name (non-empty)')
    .requiredOption('--category-id <id>', 'category id, a signed 64-bit integer')
    .option('--status <status>', 'available|pending|sold (none if omitted)');
  outputOptions(add).action(ctx.lazy(() => import('./add.js')));
  examples(add, [
    'petstore pets add --name Rex --category-id 1',
    'petstore pets add --name Tom --category-id 9007199254740993 --status available -o json',
    'id=$(petstore pets add --name Rex --category-id 1 -o json | jq -r .id)',
  ]);

  const get = pets
    .command('get')
    .description('show one pet (GET /pets/{petId}, deprecated: removed on 5 December 2030)')
    .argument('<petId>', 'the pet id, a signed 64-bit integer');
  outputOptions(get).action(ctx.lazy(() => import('./get.js')));
  examples(get, ['petstore pets get 42', 'petstore pets get 9007199254740993 -o json', 'petstore pets list --status sold   # the replacement']);
}
