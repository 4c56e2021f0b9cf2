import { type Command, Option } from 'commander';
import type { Factory } from '../factory.js';
import { FORMATS, notOneOf } from '../flag-values.js';

interface CommandModule {
  /** `cmd`: the commander command run, for what its declaration holds (a flag's choices). */
  command(f: Factory, args: string[], opts: Record<string, unknown>, cmd: Command): Promise<void>;
}

export interface CommandContext {
  lazy(load: () => Promise<CommandModule>): (...actionArgs: unknown[]) => Promise<void>;
  /** The whole command tree with actions that do nothing, for `petstore completion` (given by src/cli.ts). */
  fullProgram(): Command;
}

export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

export function examples(cmd: Command, lines: string[]): Command {
  return cmd.addHelpText('after', `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`);
}

/** A choice option: its values show in help ("a|b|c"), in completion (argChoices) and in commander's usage error. */
export function choiceOption(flags: string, values: readonly string[], describe: (list: string) => string, parse?: (text: string) => unknown): Option {
  const option = new Option(flags, describe(values.join('|'))).choices(values);
  const check =
    parse ??
    ((text: string) => {
      if (!values.includes(text)) throw notOneOf(String(option.long), text, values);
      return text;
    });
  // commander reads `-o=json` as the value "=json"; no value of ours starts with "=".
  return option.argParser((text: string) => check(text.startsWith('=') ? text.slice(1) : text));
}

/** --query, on every command that prints JSON (src/output/query.ts; compiled by src/cli.ts before the command runs). */
export function queryOption(cmd: Command): Command {
  return cmd.option('--query <jmespath>', 'print what this JMESPath expression selects from the JSON output, in any format (petstore help formatting)');
}

export function outputOptions(cmd: Command, more = ''): Command {
  return queryOption(cmd)
    .addOption(choiceOption('-o, --output <format>', FORMATS, (list) => `output format: ${list}${more}`))
    .option('--json', 'same as --output json')
    .option('--no-headers', 'no header line in table and csv output');
}
