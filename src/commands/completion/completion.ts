// petstore completion bash|zsh|fish|powershell: a script generated from the command tree itself.

import type { Command } from 'commander';
import { completionScript, isShell, SHELLS } from '../../completion/index.js';
import { notOneOf } from '../../flag-values.js';
import type { CommandModule } from '../context.js';

/** The command, given the builder of the whole tree (this run may have registered only the `completion` group). */
export function completionCommand(fullProgram: () => Command): CommandModule {
  return {
    async command(f, args) {
      const shell = args[0] ?? '';
      // commander checked it against the <shell> argument's choices; this narrows the type.
      if (!isShell(shell)) throw notOneOf('shell', shell, SHELLS);
      f.io.stdout.write(completionScript(shell, fullProgram()));
    },
  };
}
