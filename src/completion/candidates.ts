// What `petstore __complete -- <words...>` prints on each Tab: the candidates for the last word, read from the
// commander tree itself, so a new command, flag or choice completes with no edit here. The shell scripts
// (index.ts) only pass the words and show the answer.

import type { Argument, Command, Option } from 'commander';

/** The answer that lets the shell complete file names itself. */
const FILES = ':files';

type Values = readonly string[] | 'envs' | 'files' | undefined;

function optionValues(option: Option): Values {
  if (option.argChoices && option.argChoices.length > 0) return option.argChoices;
  if (option.long === '--env') return 'envs';
  return /[<[]file[>\]]/i.test(option.flags) ? 'files' : undefined;
}

function argumentValues(cmd: Command, arg: Argument | undefined, index: number): Values {
  if (arg?.argChoices && arg.argChoices.length > 0) return arg.argChoices;
  // <env>, and the first argument of the env group (env use <name>, env set <name> ...): an environment name.
  return arg?.name() === 'env' || (cmd.parent?.name() === 'env' && index === 0 && arg?.name() === 'name') ? 'envs' : undefined;
}

const names = (o: Option) => [o.long, o.short].filter((x): x is string => x !== undefined);

/** A command's flags: its own, then those it inherits (all but help, which each command has, and version). */
function flagsOf(cmd: Command, parentFlags: readonly Option[]): Option[] {
  const own = cmd.createHelp().visibleOptions(cmd);
  const seen = new Set(own.flatMap(names));
  const inherited = parentFlags.filter((o) => o.long !== '--help' && o.long !== '--version' && !names(o).some((n) => seen.has(n)));
  return [...own, ...inherited];
}

const subcommands = (cmd: Command) => cmd.createHelp().visibleCommands(cmd);
const child = (cmd: Command, word: string) => subcommands(cmd).find((c) => c.name() === word || c.aliases().includes(word));

/** A candidate with its description (first line, shortened) after a tab, for the shells that show it. */
function described(word: string, description: string): string {
  const line = (description.split('\n')[0] ?? '').trim();
  return `${word}\t${line.length > 80 ? `${line.slice(0, 79)}…` : line}`;
}

const isFlag = (word: string) => word.length > 1 && word.startsWith('-');
const valueFlag = (flags: readonly Option[], flag: string) => flags.find((o) => (o.required || o.optional) && names(o).includes(flag));

/** Where the words before the cursor leave the line: the command, a flag still waiting for its value, the positional words typed. */
function walk(program: Command, words: readonly string[]) {
  const at = { cmd: program, flags: flagsOf(program, []), expect: undefined as Option | undefined, n: 0, dashdash: false };
  for (const w of words) {
    if (at.expect) {
      // "--flag=value" arrives as three words in bash when "=" is in COMP_WORDBREAKS.
      if (w !== '=') at.expect = undefined;
    } else if (at.dashdash || !isFlag(w)) {
      const sub = at.n === 0 && !at.dashdash ? child(at.cmd, w) : undefined;
      if (sub) [at.cmd, at.flags] = [sub, flagsOf(sub, at.flags)];
      else at.n++;
    } else if (w === '--') at.dashdash = true;
    // No flag is named "--flag=value": that word waits for nothing.
    else at.expect = valueFlag(at.flags, w);
  }
  return at;
}

/** The candidates for the last of `words` (the ones after the program name), one a line. */
export async function candidates(program: Command, words: readonly string[], envNames: () => Promise<string[]>): Promise<string[]> {
  const cur = words.at(-1) ?? '';
  const starting = (line: string) => line.startsWith(cur);
  const { cmd, flags, expect, n, dashdash } = walk(program, words.slice(0, -1));
  const values = async (source: Values, prefix: string) =>
    source === 'files' ? [FILES] : (source === 'envs' ? await envNames() : (source ?? [])).filter((w) => w.startsWith(prefix));
  // Right after "--flag=" split by bash: it would replace the "=" itself, so nothing.
  if (expect) return cur === '=' ? [] : values(optionValues(expect), cur);
  const eq = cur.indexOf('=');
  if (!dashdash && cur.startsWith('-') && eq > 0) {
    const flag = valueFlag(flags, cur.slice(0, eq));
    const found = flag ? await values(optionValues(flag), cur.slice(eq + 1)) : [];
    return found[0] === FILES ? found : found.map((v) => `${cur.slice(0, eq)}=${v}`);
  }
  if (!dashdash && cur.startsWith('-')) return flags.flatMap((o) => names(o).map((name) => described(name, o.description))).filter(starting);
  const subs = subcommands(cmd);
  if (n === 0 && !dashdash && subs.length > 0)
    return subs.flatMap((s) => [s.name(), ...s.aliases()].map((w) => described(w, s.description()))).filter(starting);
  const args = cmd.registeredArguments;
  const i = args.at(-1)?.variadic && n >= args.length ? args.length - 1 : n;
  return values(argumentValues(cmd, args[i], i), cur);
}
