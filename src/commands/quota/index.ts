import type { Command } from 'commander';
import { examples, outputOptions, type CommandContext } from '../context.js';

export function registerQuota(program: Command, ctx: CommandContext): void {
  const quota = program
    .command('quota')
    .description('ask the server for the rate limit of the active environment and key: limit, remaining, reset')
    .option('--cached', 'show the last-seen values without asking (no request)');
  outputOptions(quota).action(ctx.lazy(() => import('./quota.js')));
  examples(quota, ['petstore quota', 'petstore quota -o json | jq .remaining', 'petstore quota --cached --env staging']);
}
