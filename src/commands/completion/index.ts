import { Argument, type Command } from 'commander';
import type { Shell } from '../../completion/index.js';
import { SHELLS } from '../../flag-values.js';
import { examples, type CommandContext } from '../context.js';

export function registerCompletion(program: Command, ctx: CommandContext): void {
  const cmd = program
    .command('completion')
    .description('print a shell completion script (commands, flags, --status and --output values, environment names)')
    .addArgument(new Argument('<shell>', 'the shell to complete for').choices(SHELLS))
    .action(
      ctx.lazy(async () => {
        const { completionScript } = await import('../../completion/index.js');
        // commander checked <shell> against the argument's choices.
        return { command: async (f, args) => void f.io.stdout.write(completionScript(args[0] as Shell, program.name())) };
      }),
    );
  examples(cmd, [
    'petstore completion bash > ~/.local/share/bash-completion/completions/petstore',
    'mkdir -p ~/.zfunc && petstore completion zsh > ~/.zfunc/_petstore   # with fpath=(~/.zfunc $fpath) before compinit in ~/.zshrc',
    'petstore completion fish > ~/.config/fish/completions/petstore.fish',
    'petstore completion powershell > ~/.config/powershell/petstore.ps1   # and ". ~/.config/powershell/petstore.ps1" in $PROFILE',
  ]);

  // Called by the completion scripts on each Tab: `__complete -- <words...>`. The program's arguments keep
  // the words as typed (after the first "--" commander parses nothing), this command's would drop a "--".
  program
    .command('__complete', { hidden: true })
    .helpOption(false)
    .allowUnknownOption()
    .allowExcessArguments()
    .action(
      ctx.lazy(async () => {
        const { complete } = await import('./complete.js');
        return { command: (f, _args, _opts, cmd) => complete(f, ctx.fullProgram(), cmd.parent?.args.slice(1) ?? []) };
      }),
    );
}
