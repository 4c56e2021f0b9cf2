// The generated command reference (docs/commands/, docs/petstore.1) matches the command tree: a command,
// flag, description or example changed in src/ without `npm run docs` fails here, naming the stale file.
// The man page also carries docs/scripting.md's environment variables, so editing that table means running
// `npm run docs` too. The exit codes' meanings live in src/errors/exit-codes.ts alone: the README's table
// (README.md is checked like the generated files, the rest of it as it is) and the man page's EXIT STATUS
// are written from them.
// UPDATE_DOCS=1 (what `npm run docs` sets) writes the files instead, and removes pages of commands that
// no longer exist.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Command, Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli.js';
import { ROOT } from './markdown.js';
import { COMMANDS_DIR, generatedFiles } from './reference.js';

const files = generatedFiles(buildProgram({ lazy: () => async () => {} }));
const update = !!process.env.UPDATE_DOCS;

if (update) {
  mkdirSync(join(ROOT, COMMANDS_DIR), { recursive: true });
  const wanted = new Set(files.map((f) => f.path));
  for (const name of readdirSync(join(ROOT, COMMANDS_DIR))) {
    if (!wanted.has(`${COMMANDS_DIR}/${name}`)) rmSync(join(ROOT, COMMANDS_DIR, name));
  }
  for (const f of files) {
    mkdirSync(dirname(join(ROOT, f.path)), { recursive: true });
    writeFileSync(join(ROOT, f.path), f.text);
  }
}

describe('the generated command reference', () => {
  it('has a page per command, an index and the man page', () => {
    const paths = files.map((f) => f.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'docs/commands/README.md',
        'docs/commands/petstore.md',
        'docs/commands/petstore_pets.md',
        'docs/commands/petstore_pets_list.md',
        'docs/petstore.1',
      ]),
    );
    expect(new Set(paths).size).toBe(paths.length);
  });

  it.each(files.map((f) => [f.path, f] as const))('%s is current (else run: npm run docs)', (path, f) => {
    const full = join(ROOT, path);
    expect(existsSync(full), `${path} is missing: run npm run docs`).toBe(true);
    const onDisk = readFileSync(full, 'utf8');
    if (onDisk !== f.text) expect.fail(`${path} is stale: the command tree or the exit codes changed; run npm run docs and commit the result`);
  });

  it(`${COMMANDS_DIR}/ holds no page of a command that no longer exists (else run: npm run docs)`, () => {
    const wanted = new Set(files.map((f) => f.path));
    const extra = readdirSync(join(ROOT, COMMANDS_DIR))
      .map((name) => `${COMMANDS_DIR}/${name}`)
      .filter((p) => !wanted.has(p));
    expect(extra).toEqual([]);
  });
});

describe('the generator, on a made-up tree', () => {
  const root = new Command('tool').description('a tool').option('--env <name>', 'environment');
  const group = root.command('things').description('manage things');
  group
    .command('list')
    .alias('ls')
    .description('list things')
    .addOption(new Option('--status <s>', 'only these').choices(['a', 'b']))
    .option('--limit <n>', 'how many', '20')
    .addOption(new Option('--secret', 'not shown').hideHelp())
    .addHelpText('after', '\nExamples:\n  $ tool things list\n  $ tool things ls --status a\n');
  group.command('get').description('show one').argument('<id>', 'the id').argument('[more...]', 'more ids');
  root.command('internal', { hidden: true }).description('never documented');
  const out = new Map(generatedFiles(root).map((f) => [f.path, f.text]));

  it('writes a page per visible command, none for hidden ones or the implicit help command', () => {
    expect([...out.keys()].filter((p) => p.startsWith(COMMANDS_DIR)).sort()).toEqual(
      ['README.md', 'tool.md', 'tool_things.md', 'tool_things_get.md', 'tool_things_list.md'].map((n) => `${COMMANDS_DIR}/${n}`),
    );
  });

  it('shows usage, aliases, options with choices and defaults, examples, and links the parent', () => {
    const page = out.get(`${COMMANDS_DIR}/tool_things_list.md`) ?? '';
    expect(page).toContain('# tool things list\n\nlist things\n');
    expect(page).toContain('```text\ntool things list|ls [options]\n```');
    expect(page).toContain('## Aliases\n\n`tool things ls`');
    expect(page).toContain('| `--status <s>` | only these (choices: "a", "b") |');
    expect(page).toContain('| `--limit <n>` | how many (default: "20") |');
    expect(page).not.toContain('--secret');
    expect(page).toContain('## Examples\n\n```sh\ntool things list\ntool things ls --status a\n```');
    expect(page).toContain('- [`tool things`](tool_things.md): manage things');
    expect(page).toContain('[global options](tool.md#global-options)');
  });

  it('lists arguments as the usage line writes them, and subcommands with links', () => {
    expect(out.get(`${COMMANDS_DIR}/tool_things_get.md`)).toContain('| `<id>` | the id |\n| `[more...]` | more ids |');
    expect(out.get(`${COMMANDS_DIR}/tool_things.md`)).toContain('| [`tool things list`](tool_things_list.md) | list things |');
    expect(out.get('docs/petstore.1')).toContain('.SS\n\\fBtool things list|ls [options]\\fR\nlist things\n.br\nAliases: ls');
  });
});
