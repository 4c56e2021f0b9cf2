import type { Command } from 'commander';
import { completionScript, isShell, SHELLS, type Shell } from '../../completion/index.js';
import { notOneOf } from '../../flag-values.js';
import type { Factory } from '../../factory.js';
import type { CommandModule } from '../context.js';

export interface CompletionOptions {
  shell: Shell;
  program: Command;
}

export function completionCommand(fullProgram: () => Command): CommandModule {
  return {
    async command(f, args) {
      const shell = args[0] ?? '';
      // commander checked it against the <shell> argument's choices; this narrows the type.
      if (!isShell(shell)) throw notOneOf('shell', shell, SHELLS);
      await run(f, { shell, program: fullProgram() });
    },
  };
}

export async function run(f: Factory, o: CompletionOptions): Promise<void> {
  f.io.stdout.write(completionScript(o.shell, o.program));
}
