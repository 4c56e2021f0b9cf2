import type { Command } from 'commander';
import { METHODS, parseMethod } from '../../flag-values.js';
import { choiceOption, collect, examples, queryOption, type CommandContext } from '../context.js';

export function registerApi(program: Command, ctx: CommandContext): void {
  const cmd = program
    .command('api')
    .description('send one authenticated request to any path of the API and print the response body')
    .argument('<path>', 'path below the base URL, e.g. /store/orders (query string allowed), or a full URL under the base URL')
    .addOption(choiceOption('-X, --method <method>', METHODS, (list) => `HTTP method: ${list} (default: GET, or POST with a body)`, parseMethod))
    .option('-d, --data <json>', 'request body as JSON text (sent as application/json)')
    .option('--input <file>', 'read the JSON request body from a file, or - for stdin')
    .option('-H, --header <header>', "extra request header 'Name: value' (repeatable)", collect)
    .option('-i, --include', 'print the response status line and headers on stderr');
  queryOption(cmd).action(ctx.lazy(() => import('./api.js')));
  examples(cmd, [
    'petstore api /pets',
    "petstore api '/pets?status=sold&limit=5' --include --query '[].name'",
    'petstore api -X POST /pets -d \'{"name":"Rex","categoryId":9007199254740993}\'',
    'cat pet.json | petstore api /pets --input -',
  ]);
}
