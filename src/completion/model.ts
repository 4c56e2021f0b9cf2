// The command tree as the completion generators see it, read from the commander program itself, so a new
// command or flag shows up in every script. Values commander cannot know (environments, files) go by rule.

import type { Argument, Command, Option } from 'commander';

export type ValueSource = { kind: 'none' } | { kind: 'words'; words: readonly string[] } | { kind: 'envs' } | { kind: 'files' };

export interface CommandSpec {
  /** [] for the program, ['pets', 'list'] for `petstore pets list`. */
  path: readonly string[];
  name: string;
  aliases: readonly string[];
  description: string;
  flags: readonly FlagSpec[];
  subcommands: readonly CommandSpec[];
  args: readonly ValueSource[];
  variadic: boolean;
}

export interface CompletionSpec {
  program: string;
  root: CommandSpec;
  /** The command line that prints environment names (the hidden command of src/commands/completion/index.ts). */
  envsCall: readonly string[];
}

const NONE: ValueSource = { kind: 'none' };
const WORD = /^[A-Za-z0-9_.:/@+-]+$/;

function words(list: readonly string[]): ValueSource {
  const safe = list.filter((w) => WORD.test(w));
  return safe.length > 0 ? { kind: 'words', words: safe } : NONE;
}

export function optionValues(option: Option): ValueSource {
  if (!option.required && !option.optional) return NONE;
  if (option.argChoices && option.argChoices.length > 0) return words(option.argChoices);
  if (option.long === '--env') return { kind: 'envs' };
  return /[<[]file[>\]]/i.test(option.flags) ? { kind: 'files' } : NONE;
}

export function argumentValues(path: readonly string[], arg: Argument, index: number): ValueSource {
  if (arg.argChoices && arg.argChoices.length > 0) return words(arg.argChoices);
  const name = arg.name();
  // <env>, and the first argument of the env group (env use <name>, env set <name> ...): an environment name.
  return name === 'env' || (path[0] === 'env' && index === 0 && name === 'name') ? { kind: 'envs' } : NONE;
}

export type FlagSpec = ReturnType<typeof flagSpec>;

function flagSpec(option: Option) {
  return {
    long: option.long,
    short: option.short,
    takesValue: option.required || option.optional,
    description: option.description,
    values: optionValues(option),
  };
}

function describe(cmd: Command, path: readonly string[], inheritedFlags: readonly FlagSpec[]): CommandSpec {
  const help = cmd.createHelp();
  const own = help.visibleOptions(cmd).map(flagSpec);
  const seen = new Set(own.flatMap(flagNames));
  const flags = [...own, ...inheritedFlags.filter((f) => !flagNames(f).some((name) => seen.has(name)))];
  // What the children inherit: everything but help (each command has its own) and version (program only).
  const passDown = flags.filter((f) => f.long !== '--help' && f.long !== '--version');
  const args = cmd.registeredArguments;
  return {
    path,
    name: cmd.name(),
    aliases: cmd.aliases(),
    description: cmd.description(),
    flags,
    subcommands: help.visibleCommands(cmd).map((sub) => describe(sub, [...path, sub.name()], passDown)),
    args: args.map((a, i) => argumentValues(path, a, i)),
    variadic: args.at(-1)?.variadic ?? false,
  };
}

export function completionSpec(program: Command): CompletionSpec {
  return { program: program.name(), root: describe(program, [], []), envsCall: [program.name(), '__complete', 'envs'] };
}

export function allCommands(spec: CompletionSpec): CommandSpec[] {
  const walk = (c: CommandSpec): CommandSpec[] => [c, ...c.subcommands.flatMap(walk)];
  return walk(spec.root);
}

export function subcommandWords(c: CommandSpec): { word: string; description: string }[] {
  return c.subcommands.flatMap((s) => [s.name, ...s.aliases].map((word) => ({ word, description: s.description })));
}

export function flagNames(flag: FlagSpec): string[] {
  return [flag.long, flag.short].filter((x): x is string => x !== undefined);
}

export function fnName(program: string): string {
  return program.replace(/[^A-Za-z0-9_]/g, '_');
}

export function shQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

export function shortDescription(text: string, max = 80): string {
  const line = (text.split('\n')[0] ?? '').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
