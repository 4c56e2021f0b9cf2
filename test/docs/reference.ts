// The command reference, generated from the commander tree (src/cli.ts): one Markdown page per command in
// docs/commands/ (petstore_pets_list.md, as the GitHub CLI names them), an index (docs/commands/README.md)
// and a man page (docs/petstore.1). Everything is read through commander's public API (cmd.commands,
// cmd.options, cmd.registeredArguments, cmd.aliases(), cmd.description(), the command's own Help object,
// and its --help output for the text added after the help, such as "Examples:"), so the pages follow the
// help whatever changes in it. test/docs/reference.test.ts compares the files with this; `npm run docs`
// writes them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Argument, Command, Help, Option } from 'commander';
import { exitCodeTable } from '../../src/errors/exit-codes.js';
import { ROOT } from './markdown.js';

/** A generated file: its path from the repository's root and its text. */
export interface GeneratedFile {
  path: string;
  text: string;
}

export const COMMANDS_DIR = 'docs/commands';
const MAN_PAGE = 'docs/petstore.1';

const NOTICE = '<!-- Generated from the command tree (src/cli.ts) by `npm run docs`: do not edit by hand. -->';

/** The subcommands a user sees: not hidden, and not commander's implicit help command. */
function subcommands(cmd: Command): Command[] {
  return cmd
    .createHelp()
    .visibleCommands(cmd)
    .filter((c) => cmd.commands.includes(c));
}

/** Every command below `root` (not `root` itself), depth first in help order. */
function descendants(root: Command): Command[] {
  return subcommands(root).flatMap((c) => [c, ...descendants(c)]);
}

/** The words of a command's path: ['petstore', 'pets', 'list']. */
function pathOf(cmd: Command): string[] {
  const words: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) words.unshift(c.name());
  return words;
}

const fileOf = (cmd: Command): string => `${pathOf(cmd).join('_')}.md`;
const fullName = (cmd: Command): string => pathOf(cmd).join(' ');

/** The help object commander uses for this command (its configureHelp settings included), at a fixed width. */
function helpFor(cmd: Command): Help {
  const help = cmd.createHelp();
  help.prepareContext({ helpWidth: 80, outputHasColors: false });
  return help;
}

/**
 * The text blocks `--help` shows besides commander's own sections: what addHelpText adds before and
 * after it, and an "Examples:" section inside the help itself if the examples are ever put there.
 */
function extraBlocks(cmd: Command): TextBlock[] {
  const { before, after, help } = addedText(cmd);
  const found = [...blocks(before), ...blocks(after)];
  const at = help.search(/^Examples:$/m);
  if (at >= 0 && !found.some((b) => b.heading === 'Examples')) {
    const inHelp = blocks(help.slice(at))[0];
    if (inHelp) found.push(inHelp);
  }
  return found;
}

/** What `--help` prints before and after the generated help (addHelpText), at 80 columns without colour. */
function addedText(cmd: Command): { before: string; after: string; help: string } {
  let out = '';
  const write = (s: string) => {
    out += s;
  };
  cmd.configureOutput({
    writeOut: write,
    writeErr: write,
    getOutHelpWidth: () => 80,
    getErrHelpWidth: () => 80,
    getOutHasColors: () => false,
    getErrHasColors: () => false,
  });
  cmd.outputHelp();
  const help = cmd.helpInformation();
  const at = out.indexOf(help);
  if (at < 0) return { before: '', after: out, help };
  return { before: out.slice(0, at), after: out.slice(at + help.length), help };
}

interface TextBlock {
  heading?: string;
  lines: string[];
}

/** Text added to the help, cut at its headings ("Examples:"); the lines of each block without their common indent. */
function blocks(text: string): TextBlock[] {
  const out: TextBlock[] = [];
  let current: TextBlock | undefined;
  for (const line of text.replace(/\s+$/, '').split('\n')) {
    const heading = /^(\S.*):$/.exec(line);
    if (heading) {
      out.push((current = { heading: heading[1]!, lines: [] }));
    } else if (line.trim() !== '' || (current && current.lines.length > 0)) {
      if (!current) out.push((current = { lines: [] }));
      current.lines.push(line);
    }
  }
  for (const b of out) {
    while (b.lines.length > 0 && b.lines[b.lines.length - 1]!.trim() === '') b.lines.pop();
    const indent = Math.min(...b.lines.filter((l) => l.trim() !== '').map((l) => /^ */.exec(l)![0].length));
    if (Number.isFinite(indent)) b.lines = b.lines.map((l) => l.slice(indent));
  }
  return out.filter((b) => b.lines.length > 0 || b.heading !== undefined);
}

/** A block as Markdown: shell lines ("$ …") as an sh code block, anything else as text. */
function blockMarkdown(b: TextBlock): string {
  const shell = b.lines.some((l) => l.startsWith('$ ')) && b.lines.every((l) => l.trim() === '' || l.startsWith('$ ') || l.startsWith('# '));
  const body = shell ? `\`\`\`sh\n${b.lines.map((l) => l.replace(/^\$ /, '')).join('\n')}\n\`\`\`` : `\`\`\`text\n${b.lines.join('\n')}\n\`\`\``;
  return b.heading === undefined ? body : `## ${b.heading}\n\n${b.lines.length > 0 ? body : ''}`.trimEnd();
}

/** Text for a Markdown table cell: one line, pipes escaped. */
const cell = (s: string): string => s.replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|');
/** Inline code that survives any backtick inside. */
const code = (s: string): string => (s.includes('`') ? `\`\` ${s} \`\`` : `\`${s}\``);

function optionsTable(help: Help, options: readonly Option[]): string {
  const rows = options.map((o) => `| ${cell(code(help.optionTerm(o)))} | ${cell(help.optionDescription(o))} |`);
  return ['| Option | Description |', '| --- | --- |', ...rows].join('\n');
}

/** An argument as the usage line writes it: <required>, [optional], with ... when it repeats. */
const argumentName = (a: Argument): string => {
  const name = `${a.name()}${a.variadic ? '...' : ''}`;
  return a.required ? `<${name}>` : `[${name}]`;
};

function argumentsTable(help: Help, args: readonly Argument[]): string {
  const rows = args.map((a) => `| ${cell(code(argumentName(a)))} | ${cell(help.argumentDescription(a))} |`);
  return ['| Argument | Description |', '| --- | --- |', ...rows].join('\n');
}

function commandsTable(cmd: Command): string {
  const help = helpFor(cmd);
  const rows = subcommands(cmd).map((c) => `| [${cell(code(fullName(c)))}](${fileOf(c)}) | ${cell(help.subcommandDescription(c))} |`);
  return ['| Command | Description |', '| --- | --- |', ...rows].join('\n');
}

/** The Markdown page of one command. */
function commandPage(cmd: Command): string {
  const help = helpFor(cmd);
  const root = pathOf(cmd).length === 1;
  const parts: string[] = [NOTICE, `# ${fullName(cmd)}`];
  const description = help.commandDescription(cmd);
  if (description) parts.push(description);
  parts.push(`## Usage\n\n\`\`\`text\n${help.commandUsage(cmd)}\n\`\`\``);
  const aliases = cmd.aliases();
  if (aliases.length > 0) {
    const parent = cmd.parent ? `${fullName(cmd.parent)} ` : '';
    parts.push(`## Aliases\n\n${aliases.map((a) => code(`${parent}${a}`)).join(', ')}`);
  }
  const args = cmd.registeredArguments;
  if (args.length > 0) {
    // Arguments without a description still get a row: their name says what they are.
    parts.push(`## Arguments\n\n${argumentsTable(help, args)}`);
  }
  const options = help.visibleOptions(cmd);
  if (options.length > 0) parts.push(`## ${root ? 'Global options' : 'Options'}\n\n${optionsTable(help, options)}`);
  if (!root) {
    const rootCmd = cmd.parent && pathOf(cmd).length > 1 ? topOf(cmd) : cmd;
    parts.push(`Every command also takes the [global options](${fileOf(rootCmd)}#global-options).`);
  }
  if (subcommands(cmd).length > 0) parts.push(`## Commands\n\n${commandsTable(cmd)}`);
  for (const b of extraBlocks(cmd)) parts.push(blockMarkdown(b));
  const see: string[] = [];
  if (cmd.parent) see.push(`- [${code(fullName(cmd.parent))}](${fileOf(cmd.parent)}): ${helpFor(cmd.parent).commandDescription(cmd.parent)}`);
  see.push('- [All commands](README.md)');
  parts.push(`## See also\n\n${see.join('\n')}`);
  return `${parts.join('\n\n')}\n`;
}

function topOf(cmd: Command): Command {
  let c = cmd;
  while (c.parent) c = c.parent;
  return c;
}

/** docs/commands/README.md: every command, nested as the tree is. */
function indexPage(root: Command): string {
  const help = helpFor(root);
  const lines = (cmd: Command, depth: number): string[] => [
    `${'  '.repeat(depth)}- [${code(fullName(cmd))}](${fileOf(cmd)}): ${cell(helpFor(cmd).commandDescription(cmd))}`,
    ...subcommands(cmd).flatMap((c) => lines(c, depth + 1)),
  ];
  return `${[
    NOTICE,
    '# Command reference',
    `${help.commandDescription(root)}. One page per command, generated from the same definitions as \`petstore --help\`; each page shows what \`petstore <command> --help\` prints, as Markdown.`,
    lines(root, 0).join('\n'),
    'The guides: [README](../../README.md) (exit codes, a tour), [usage](../usage.md), [seeding](../seeding.md), [rate limits](../rate-limits.md), [sandbox](../sandbox.md), [scripting](../scripting.md), [configuration](../configuration.md). The same reference as a man page: `man petstore` once installed (`man ./docs/petstore.1` in a clone).',
  ].join('\n\n')}\n`;
}

// ---- man page ----

/** roff-safe text: backslashes escaped, a leading dot or quote neutralised. */
function roff(text: string): string {
  return text
    .replace(/\\/g, '\\e')
    .split('\n')
    .map((l) => (/^[.']/.test(l) ? `\\&${l}` : l))
    .join('\n');
}
/** Markdown inline text to roff: code spans bold, links as their text, escapes undone. */
function roffInline(md: string): string {
  return roff(md.replace(/\\\|/g, '|').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')).replace(/`([^`]+)`/g, '\\fB$1\\fR');
}
const flag = (s: string): string => roff(s).replace(/-/g, '\\-');

/** The rows of the first table after a heading in a Markdown file (the cells of each row). */
function tableAfter(file: string, heading: string): string[][] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const at = text.indexOf(`\n${heading}\n`);
  if (at < 0) throw new Error(`${file}: no "${heading}" section for the man page`);
  const rows: string[][] = [];
  for (const line of text.slice(at + heading.length + 2).split('\n')) {
    if (line.startsWith('#')) break;
    if (!line.startsWith('|')) {
      if (rows.length > 0) break;
      continue;
    }
    const cells = line
      .slice(1, -1)
      .split(/(?<!\\)\|/)
      .map((c) => c.trim());
    if (!cells.every((c) => /^:?-+:?$/.test(c))) rows.push(cells);
  }
  return rows.slice(1);
}

function manOptions(help: Help, options: readonly Option[]): string[] {
  return options.flatMap((o) => ['.TP', `\\fB${flag(help.optionTerm(o))}\\fR`, roff(help.optionDescription(o))]);
}

function manCommand(cmd: Command): string[] {
  const help = helpFor(cmd);
  const out = ['.SS', `\\fB${flag(help.commandUsage(cmd))}\\fR`];
  out.push(roff(help.commandDescription(cmd)));
  if (cmd.aliases().length > 0) out.push('.br', `Aliases: ${roff(cmd.aliases().join(', '))}`);
  for (const a of cmd.registeredArguments) out.push('.TP', `\\fI${flag(argumentName(a))}\\fR`, roff(help.argumentDescription(a) || ' '));
  out.push(...manOptions(help, help.visibleOptions(cmd)));
  for (const b of extraBlocks(cmd)) {
    out.push('.PP');
    if (b.heading) out.push(`${roff(b.heading)}:`);
    out.push('.RS 4', '.nf', ...b.lines.map((l) => roff(l)), '.fi', '.RE');
  }
  return out;
}

/** docs/petstore.1: the whole tree as one man page, with the exit codes and environment variables the docs list. */
function manPage(root: Command): string {
  const help = helpFor(root);
  const lines = [
    '.\\" Generated from the command tree (src/cli.ts) by `npm run docs`: do not edit by hand.',
    '.TH PETSTORE 1 "" "petstore" "User Commands"',
    '.SH NAME',
    `petstore \\- ${roff(help.commandDescription(root))}`,
    '.SH SYNOPSIS',
    `\\fB${flag(help.commandUsage(root))}\\fR`,
    '.SH DESCRIPTION',
    'List, add and look up pets against production, staging or a local sandbox. Data goes to stdout;',
    'messages, warnings and errors go to stderr. Every command has \\fB\\-\\-help\\fR with examples.',
    '.SH GLOBAL OPTIONS',
    ...manOptions(help, help.visibleOptions(root)),
    '.SH COMMANDS',
    ...descendants(root).flatMap(manCommand),
    '.SH EXIT STATUS',
    ...exitCodeTable().flatMap(({ code, meaning }) => ['.TP', `\\fB${code}\\fR`, roffInline(meaning)]),
    '.SH ENVIRONMENT',
    ...tableAfter('docs/scripting.md', '## Environment variables').flatMap(([name = '', effect = '']) => ['.TP', roffInline(name), roffInline(effect)]),
    '.SH FILES',
    '.TP',
    '\\fI~/.config/petstore/config.json\\fR',
    'Environments and API keys (mode 0600); the folder is \\fBPETSTORE_CONFIG_DIR\\fR, else \\fB$XDG_CONFIG_HOME/petstore\\fR.',
    '.TP',
    '\\fI~/.local/state/petstore/journals/\\fR',
    'Seeding journals; the folder is \\fBPETSTORE_STATE_DIR\\fR, else \\fB$XDG_STATE_HOME/petstore\\fR.',
    '.TP',
    '\\fI~/.cache/petstore/\\fR',
    'The code cache that speeds up start-up; the folder is \\fB$XDG_CACHE_HOME/petstore\\fR if set. Safe to delete.',
    '.SH SEE ALSO',
    'The README and docs/ of the petstore repository: docs/commands/ (this reference, one page per command),',
    'docs/seeding.md, docs/rate-limits.md, docs/sandbox.md, docs/scripting.md, docs/configuration.md, docs/security.md.',
  ];
  return `${lines.join('\n')}\n`;
}

/**
 * README.md with its exit-code table (from the header row to the first blank line after it) written
 * from src/errors/exit-codes.ts: the contract is written once, there; the rest of the README is as it is.
 */
function readmeWithExitCodes(): string {
  const text = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const start = text.indexOf('| Code | Meaning |\n', text.indexOf('\n## Exit codes\n'));
  const end = start < 0 ? -1 : text.indexOf('\n\n', start);
  if (start < 0 || end < 0) throw new Error('README.md: no "| Code | Meaning |" table under "## Exit codes"');
  // A cell's | is escaped, also inside a code span (GitHub's tables split on it otherwise).
  const rows = exitCodeTable().map(({ code, meaning }) => `| ${code} | ${meaning.replace(/\|/g, '\\|')} |`);
  return text.slice(0, start) + ['| Code | Meaning |', '|---|---|', ...rows].join('\n') + text.slice(end);
}

/** Every generated file, from a program built with all its command groups. */
export function generatedFiles(root: Command): GeneratedFile[] {
  return [
    { path: `${COMMANDS_DIR}/README.md`, text: indexPage(root) },
    ...[root, ...descendants(root)].map((cmd) => ({ path: `${COMMANDS_DIR}/${fileOf(cmd)}`, text: commandPage(cmd) })),
    { path: MAN_PAGE, text: manPage(root) },
    { path: 'README.md', text: readmeWithExitCodes() },
  ];
}
