import type { Command } from 'commander';
import { PLANS } from '../../flag-values.js';
import { choiceOption, collect, examples, type CommandContext } from '../context.js';

export function registerSandbox(program: Command, ctx: CommandContext): void {
  const sandbox = program
    .command('sandbox')
    .description('run a local pet store server that implements the interface, for demos and testing scripts offline')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0 picks a free one)', '4010')
    .option('--key <key>', 'accepted API key (repeatable; default: one generated key, printed at start)', collect, [])
    // Checked with the other flags by parseSandboxOptions (any case; "enterprise" has a message of its own).
    .addOption(
      choiceOption(
        '--plan <plan>',
        PLANS,
        (list) => `rate-limit plan: ${list}`,
        (text) => text,
      ).default('free'),
    )
    .option('--per-minute <n>', 'requests per window per key (overrides the plan)')
    .option('--per-day <n>', 'requests per day per key (overrides the plan)')
    .option('--window <duration>', 'length of the per-minute window, e.g. 3s, 500ms, 1m', '60s')
    .option('--day-window <duration>', 'length of the per-day window', '24h')
    .option('--no-ban', 'do not ban keys that retry before Retry-After has passed')
    .option('--ban-seconds <n>', 'length of a ban (default: 5 windows)')
    .option('--data <file>', 'keep pets in this file, loaded at start (each create is written before its 201)')
    .option('--first-id <n>', 'first id to hand out (exact int64)')
    .option('--log', 'print one line per request on stderr');
  sandbox.action(ctx.lazy(() => import('./sandbox.js')));
  examples(sandbox, [
    'petstore sandbox --port 0',
    'petstore sandbox --key test-key-1 --per-minute 5 --window 3s',
    'petstore sandbox --data ./pets.json --first-id 9007199254740993',
  ]);
}
