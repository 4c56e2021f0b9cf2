import type { Command } from 'commander';
import { completionScript, type Shell } from '../../completion/index.js';
import type { CommandModule } from '../context.js';

export function completionCommand(fullProgram: () => Command): CommandModule {
  return {
    async command(f, args) {
      // commander checked <shell> against the argument's choices.
      f.io.stdout.write(completionScript(args[0] as Shell, fullProgram()));
    },
  };
}
