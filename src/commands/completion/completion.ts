// petstore completion bash|zsh|fish: a script generated from the command tree itself.

import { buildProgram } from '../../cli.js';
import { completionScript, isShell, SHELLS, type Shell } from '../../completion/index.js';
import { UsageError } from '../../errors/errors.js';
import type { Factory } from '../../factory.js';

export interface CompletionOptions {
  shell: Shell;
}

export async function command(f: Factory, args: string[], _opts: Record<string, unknown>): Promise<void> {
  const shell = args[0] ?? '';
  if (!isShell(shell)) throw new UsageError(`invalid shell "${shell}": must be one of ${SHELLS.join(', ')}`);
  await run(f, { shell });
}

export async function run(f: Factory, o: CompletionOptions): Promise<void> {
  // The same tree the user runs, built with actions that do nothing.
  const program = buildProgram({ lazy: () => async () => {} });
  f.io.stdout.write(completionScript(o.shell, program));
}
