import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli.js';
import { startSandbox } from '../helpers/sandbox.js';
import { EXIT_CODE_MEANING, ExitCode, SIGNAL_EXIT } from '../../src/errors/exit-codes.js';
import { FORMATS } from '../../src/flag-values.js';
import { CI_SEED_RECIPE, HELP_TOPICS } from '../../src/help/topics.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { runInProcess } from '../helpers/inprocess.js';

// --version and help: every command's --help shows examples, and "help" gives the same text.
// The command tree is walked, so a command added later is covered without editing this file.

const KEY = 'sk_help_test_key_0123456789';
const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

function walk(cmd: Command, path: string[] = []): { leaves: string[][]; groups: string[][] } {
  const leaves: string[][] = [];
  const groups: string[][] = [];
  for (const sub of cmd.commands) {
    // The implicit help command, and hidden ones (the completion back end, __complete).
    if (sub.name() === 'help' || (sub as unknown as { _hidden?: boolean })._hidden === true) continue;
    const p = [...path, sub.name()];
    if (sub.commands.filter((c) => c.name() !== 'help').length === 0) leaves.push(p);
    else {
      groups.push(p);
      const inner = walk(sub, p);
      leaves.push(...inner.leaves);
      groups.push(...inner.groups);
    }
  }
  return { leaves, groups };
}

const { leaves, groups } = walk(buildProgram({ lazy: () => async () => {} }));

/** The "Examples:" block that ends a help text: 2 to 4 lines, each "  $ petstore …". */
function exampleLines(help: string, name: string): string[] {
  const block = help.split('\nExamples:\n')[1];
  expect(block, `${name} --help has no Examples block`).toBeDefined();
  const lines = block!.trimEnd().split('\n');
  expect(lines.length, `${name}: 2 to 4 examples`).toBeGreaterThanOrEqual(2);
  expect(lines.length, `${name}: 2 to 4 examples`).toBeLessThanOrEqual(4);
  for (const line of lines) expect(line).toMatch(/^ {2}\$ .*\bpetstore /);
  return lines;
}

describe('the command tree', () => {
  it('has the commands the README documents', () => {
    expect(leaves.map((p) => p.join(' '))).toEqual(
      expect.arrayContaining([
        'env set',
        'env use',
        'env list',
        'env show',
        'env remove',
        'auth login',
        'auth status',
        'auth logout',
        'pets list',
        'pets add',
        'pets get',
        'quota',
        'api',
        'sandbox',
        'completion',
      ]),
    );
    expect(groups.map((p) => p.join(' '))).toEqual(expect.arrayContaining(['env', 'auth', 'pets']));
  });
});

describe.each(leaves.map((p) => [p.join(' '), p] as const))('petstore %s', (name, path) => {
  it('--help: usage, options and an Examples block with runnable lines; exit 0, nothing on stderr', async () => {
    const r = await runInProcess([...path, '--help']);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(new RegExp(`^Usage: petstore ${name}(\\|\\w+)? `));
    // The global flags are listed once (petstore help flags), not in every command's help.
    expect(r.stdout).not.toContain('Global Options');
    expect(r.stdout).not.toContain('--max-retries');
    expect(r.stdout).toContain('\nGlobal flags: petstore help flags\n');
    const lines = exampleLines(r.stdout, name);
    expect(lines.some((l) => l.includes(`petstore ${name}`))).toBe(true);
  });

  it('"help" shows the same text', async () => {
    const flag = await runInProcess([...path, '--help']);
    // Top level: petstore help <cmd>; in a group: petstore <group> help <cmd>.
    const r = await runInProcess([...path.slice(0, -1), 'help', path.at(-1)!]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(flag.stdout);
  });
});

describe('groups', () => {
  it.each(groups.map((p) => [p.join(' '), p] as const))('petstore %s --help lists its commands; "help %s" too', async (_name, path) => {
    const r = await runInProcess([...path, '--help']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain('\nCommands:\n');
    expect(r.stdout).toContain('\nGlobal flags: petstore help flags\n');
    exampleLines(r.stdout, path.join(' '));
    const viaHelp = await runInProcess(['help', ...path]);
    expect(viaHelp.exitCode).toBe(0);
    expect(viaHelp.stdout).toBe(r.stdout);
  });

  it.each(groups.map((p) => [p.join(' '), p] as const))('petstore %s alone prints its help on stdout, exit 0', async (_name, path) => {
    const r = await runInProcess(path);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe((await runInProcess([...path, '--help'])).stdout);
    expect((await runInProcess(['--env', 'staging', ...path])).stdout).toBe(r.stdout);
  });

  it('petstore help <group> <command> shows the help of that command; an unknown one is exit 2', async () => {
    const r = await runInProcess(['help', 'pets', 'list']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^Usage: petstore pets list\|ls /);
    expect((await runInProcess(['--env', 'staging', 'help', 'auth', 'login'])).stdout).toMatch(/^Usage: petstore auth login /);
    const unknown = await runInProcess(['help', 'pets', 'lst']);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toBe("error: unknown command 'lst' (petstore help lists them)\n");
  });
});

describe('petstore help and --version (built CLI)', () => {
  it('--version and -V print the version of package.json, nothing else', async () => {
    for (const flag of ['--version', '-V']) {
      const r = await runCli([flag]);
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe(`${pkg.version}\n`);
      expect(r.stderr).toBe('');
    }
  });

  it('no arguments, help and --help print the same help on stdout, listing every top-level command; exit 0', async () => {
    const help = await runCli(['help']);
    const flag = await runCli(['--help']);
    const none = await runCli([]);
    for (const r of [help, flag, none]) {
      expect(r.exitCode).toBe(0);
      expect(r.stderr).toBe('');
    }
    expect(help.stdout).toBe(flag.stdout);
    expect(none.stdout).toBe(flag.stdout);
    for (const top of new Set([...leaves, ...groups].map((p) => p[0]!))) expect(help.stdout).toMatch(new RegExp(`\\n  ${top}\\b`));
  });

  it('help for a leaf of the built CLI shows its examples', async () => {
    const r = await runCli(['pets', 'help', 'add']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain('Examples:\n  $ petstore pets add --name Rex --category-id 1');
  });

  it('help for an unknown command or topic is one line on stderr and exit 2', async () => {
    const r = await runCli(['help', 'nope']);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe("error: unknown command or help topic 'nope' (petstore help lists them)\n");
  });

  it('global flags without a command are one line on stderr and exit 2, naming the flags, never their values', async () => {
    const v = await runCli(['-v']);
    expect(v.exitCode).toBe(2);
    expect(v.stdout).toBe('');
    expect(v.stderr).toBe(
      'error: no command given, only global flags (-v); add a command (petstore help lists them); -v is --verbose (the version: petstore --version)\n',
    );
    const limiter = await runCli(['--env', 'staging', '--limiter=redis://:hunter2-secret@cache:6379/0', '-q']);
    expect(limiter.exitCode).toBe(2);
    expect(limiter.stderr).toBe('error: no command given, only global flags (--env --limiter -q); add a command (petstore help lists them)\n');
  });

  it('-v is --verbose, not the version: the quota line is printed even when stderr is not a terminal', async () => {
    const sb = await startSandbox({ keys: [KEY] });
    try {
      const env = { PETSTORE_BASE_URL: sb.baseUrl, PETSTORE_API_KEY: KEY };
      const verbose = await runCli(['-v', 'pets', 'list', '-o', 'json'], { env });
      const plain = await runCli(['pets', 'list', '-o', 'json'], { env });
      expect(verbose.exitCode).toBe(0);
      expect(verbose.stdout).toBe('[]\n');
      expect(verbose.stderr).toMatch(/^quota: \d+\/\d+ left/);
      expect(plain.stderr).toBe('');
    } finally {
      await sb.close();
    }
  });
});

describe('help topics', () => {
  const names = HELP_TOPICS.map((t) => t.name);

  it('petstore help lists every topic', async () => {
    const r = await runInProcess(['help']);
    expect(r.stdout).toContain('\nHelp topics (petstore help <topic>):\n');
    for (const topic of HELP_TOPICS) expect(r.stdout).toMatch(new RegExp(`\\n  ${topic.name} +${topic.summary.split(' ')[0]}`));
    expect(names).toEqual(expect.arrayContaining(['flags', 'environment', 'exit-codes', 'formatting', 'ci']));
  });

  it.each(names)('petstore help %s: the topic on stdout, exit 0; after global flags too', async (name) => {
    const r = await runInProcess(['help', name]);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout.length).toBeGreaterThan(200);
    expect(r.stdout.endsWith('\n')).toBe(true);
    expect((await runInProcess(['--env', 'staging', 'help', name])).stdout).toBe(r.stdout);
  });

  it('exit-codes: every code of the exit-code table and of the signals, each with its meaning', async () => {
    const { stdout } = await runInProcess(['help', 'exit-codes']);
    for (const name of Object.keys(ExitCode) as (keyof typeof ExitCode)[]) {
      expect(stdout).toMatch(
        new RegExp(
          `\\n  ${ExitCode[name]} +${EXIT_CODE_MEANING[name]
            .replace(/`/g, '')
            .slice(0, 20)
            .replace(/[()|+]/g, '\\$&')}`,
        ),
      );
    }
    for (const code of Object.values(SIGNAL_EXIT)) expect(stdout).toMatch(new RegExp(`\\n  ${code} `));
  });

  it('environment: every PETSTORE_ variable the code reads, and the precedence', async () => {
    const { stdout } = await runInProcess(['help', 'environment']);
    const files = [
      ...readdirSync(new URL('../../src', import.meta.url), { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => join(e.parentPath, e.name)),
      fileURLToPath(new URL('../../bin/petstore', import.meta.url)),
    ];
    const read = new Set(files.flatMap((f) => readFileSync(f, 'utf8').match(/(?<![A-Z_])PETSTORE_[A-Z_]+/g) ?? []));
    expect(read.size).toBeGreaterThan(5);
    for (const variable of read) expect(stdout, variable).toMatch(new RegExp(`\\n  ${variable} `));
    expect(stdout).toContain('a flag, then an environment variable, then the config file');
  });

  it('formatting: every -o format, the colour rules, and stdout for data only', async () => {
    const { stdout } = await runInProcess(['help', 'formatting']);
    for (const format of FORMATS) expect(stdout).toMatch(new RegExp(`\\n  ${format} `));
    for (const word of ['NO_COLOR', 'FORCE_COLOR', '--no-color', 'TERM=dumb', 'stdout', 'stderr']) expect(stdout).toContain(word);
  });

  it('flags: every global flag of the program (not --help or --version), once', async () => {
    const { stdout } = await runInProcess(['help', 'flags']);
    const program = buildProgram({ lazy: () => async () => {} });
    for (const option of program.options) {
      if (option.long === '--version') continue;
      expect(stdout.split(`  ${option.flags} `).length - 1, option.flags).toBe(1);
    }
    expect(stdout).toMatch(/-v, --verbose /);
  });

  it('ci: the seeding recipe that test/e2e/ci-recipe.test.ts runs', async () => {
    const { stdout } = await runInProcess(['help', 'ci']);
    expect(stdout).toContain(CI_SEED_RECIPE);
  });
});

describe('aliases', () => {
  it.each([
    [['pets', 'list'], 'ls'],
    [['pets', 'add'], 'create'],
    [['pets', 'get'], 'view'],
    [['env', 'list'], 'ls'],
  ])('petstore %j has the alias %s: same help, listed in its group', async (path, alias) => {
    const [group, name] = path as [string, string];
    const viaAlias = await runInProcess([group, alias, '--help']);
    expect(viaAlias.exitCode).toBe(0);
    expect(viaAlias.stdout).toBe((await runInProcess([group, name, '--help'])).stdout);
    expect((await runInProcess([group, '--help'])).stdout).toMatch(new RegExp(`\\n  ${name}\\|${alias}\\b`));
  });

  it('an alias runs the command', async () => {
    const dir = tempDir();
    try {
      const env = { PETSTORE_CONFIG_DIR: dir.dir };
      expect((await runInProcess(['env', 'ls', '-o', 'json'], { env })).stdout).toBe((await runInProcess(['env', 'list', '-o', 'json'], { env })).stdout);
    } finally {
      dir.cleanup();
    }
  });
});

describe('-o=json and --output=json', () => {
  it('commander hands a short flag "=json" as its value (pinned: the parser strips the "=")', () => {
    const cmd = new Command().exitOverride().option('-o, --output <format>').option('--long <v>');
    cmd.parse(['-o=json', '--long=x'], { from: 'user' });
    expect(cmd.opts()).toEqual({ output: '=json', long: 'x' });
  });

  it.each([['-o=json'], ['--output=json'], ['-ojson'], ['-o', 'json']])('%s prints JSON', async (...flag) => {
    const dir = tempDir();
    try {
      const r = await runInProcess(['env', 'list', ...flag], { env: { PETSTORE_CONFIG_DIR: dir.dir } });
      expect(r.exitCode).toBe(0);
      expect(JSON.parse(r.stdout)).toContainEqual(expect.objectContaining({ name: 'production' }));
    } finally {
      dir.cleanup();
    }
  });

  it('-o=xml names the value without the "="', async () => {
    const r = await runInProcess(['env', 'list', '-o=xml']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toBe('error: invalid --output "xml": must be one of table, json, ndjson, csv\n');
  });
});
