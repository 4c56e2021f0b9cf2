import type { Command } from 'commander';
import type { Factory } from '../factory.js';

/** A command module: validates raw flags into typed options, then runs. */
export interface CommandModule {
  command(f: Factory, args: string[], opts: Record<string, unknown>): Promise<void>;
}

export interface CommandContext {
  /** The commander action for a lazily imported command module. */
  lazy(load: () => Promise<CommandModule>): (...actionArgs: unknown[]) => Promise<void>;
  /**
   * The whole command tree with actions that do nothing, whatever part of it this run registered
   * (`petstore completion` generates its scripts from it). Given by src/cli.ts, so no command
   * module imports the module that imports it.
   */
  fullProgram(): Command;
}

/** A repeatable option's parser for commander: each use appends its value. */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** Adds an "Examples" block to a command's --help. */
export function examples(cmd: Command, lines: string[]): Command {
  return cmd.addHelpText('after', `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`);
}

/** Declares -o/--output and --json on a command that prints data. */
export function outputOptions(cmd: Command, formats = 'table|json|ndjson|csv'): Command {
  return cmd
    .option('-o, --output <format>', `output format: ${formats}`)
    .option('--json', 'same as --output json');
}
