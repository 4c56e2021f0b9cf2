import type { Command } from 'commander';
import { FILE_RESULT_FORMATS, GET_PET_REMOVAL, INPUT_FORMATS, parseLimit, parseLineList, PET_STATUSES, wholeNumber } from '../../flag-values.js';
import { choiceOption, examples, outputOptions, type CommandContext } from '../context.js';

export function registerPets(program: Command, ctx: CommandContext): void {
  const pets = program.command('pets').description('list, add and fetch pets');
  examples(pets, [
    'petstore pets list --status available',
    'petstore pets add --name Rex --category-id 1',
    'petstore --env staging pets add --file pets.csv --results results.ndjson',
    'petstore pets get 42',
  ]);

  const list = pets
    .command('list')
    .alias('ls')
    .description('list pets (GET /pets)')
    .option('--limit <n>', 'how many pets to return, 1 to 100 (server default 20)', parseLimit)
    .addOption(choiceOption('--status <status>', PET_STATUSES, (list) => `only pets with this status: ${list}`));
  outputOptions(list).action(ctx.lazy(() => import('./list.js')));
  examples(list, [
    'petstore pets list',
    'petstore pets list --status available --limit 100',
    "petstore pets list -o json | jq -r '.[].name'",
    'petstore pets list --env staging -o csv > pets.csv',
  ]);

  const add = pets
    .command('add')
    .alias('create')
    .description('add a pet (POST /pets) and print it with its new id; or many from a file with --file')
    .option('--name <name>', "the pet's name (non-empty)")
    .option('--category-id <id>', 'category id, a signed 64-bit integer')
    .addOption(choiceOption('--status <status>', PET_STATUSES, (list) => `${list} (none if omitted)`))
    .option('--file <file>', `create one pet per record of a ${INPUT_FORMATS.join('|')} file (json: an array; - reads stdin)`)
    .addOption(choiceOption('--format <format>', INPUT_FORMATS, (list) => `format of --file: ${list} (default: from the extension, else sniffed)`))
    .option('--skip-invalid', 'with --file: send the valid records and report the invalid ones')
    .option('--dry-run', 'with --file: validate and print what would be sent; send nothing')
    .option('--concurrency <n>', 'with --file: requests in flight at once, 1 to 64', wholeNumber('--concurrency', 1, 64), 4)
    .option('--results <file>', 'with --file: keep the journal (NDJSON results) in this file instead of the state folder; nothing on stdout')
    .option('--resume [journal]', "with --file: continue the journal of an earlier run (default: --results or the input's own); created records are skipped")
    .option(
      '--retry-unknown [lines]',
      'with --resume: resend the records whose outcome was unknown, or only those at these input lines (12,40); check them first',
      parseLineList('--retry-unknown'),
    )
    .option('--report', "with --file: print the journal's results in input order (each record's last outcome); send nothing")
    .option('--yes', 'with --file: do not ask before writing to production');
  outputOptions(add, ` (with --file: ${FILE_RESULT_FORMATS.join('|')})`).action(ctx.lazy(() => import('./add.js')));
  examples(add, [
    'petstore pets add --name Rex --category-id 1',
    'id=$(petstore pets add --name Tom --category-id 9007199254740993 --status available -o json | jq -r .id)',
    'petstore --env staging pets add --file pets.csv --results results.ndjson --resume',
    'petstore pets add --file pets.ndjson --dry-run',
  ]);

  const get = pets
    .command('get')
    .alias('view')
    .description(`show pets by id (GET /pets/{petId}, deprecated: removed on ${GET_PET_REMOVAL}); exit 5 if any is not found`)
    .argument('<petId...>', 'one or more pet ids, each a signed 64-bit integer');
  outputOptions(get).action(ctx.lazy(() => import('./get.js')));
  examples(get, [
    'petstore pets get 42',
    'petstore pets get 42 9007199254740993 -o ndjson',
    'petstore pets get 9007199254740993 -o json',
    'petstore pets list --status sold   # the replacement',
  ]);
}
