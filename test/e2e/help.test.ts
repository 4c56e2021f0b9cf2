import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli.js';
import { runCli } from '../helpers/cli.js';
import { runInProcess } from '../helpers/inprocess.js';

// --version and help: every command's --help shows examples, and "help" gives the same text.
// The command tree is walked, so a command added later is covered without editing this file.

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
    expect(r.stdout).toMatch(new RegExp(`^Usage: petstore ${name} `));
    expect(r.stdout).toContain('\nGlobal Options:\n');
    const examples = r.stdout.split('\nExamples:\n')[1];
    expect(examples, `${name} --help has no Examples block`).toBeDefined();
    const lines = examples!.trimEnd().split('\n');
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).toMatch(/^ {2}\$ /);
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
    const viaHelp = await runInProcess(['help', ...path]);
    expect(viaHelp.exitCode).toBe(0);
    expect(viaHelp.stdout).toBe(r.stdout);
  });

  it('petstore help <group> <command> shows the help of that command; an unknown one is exit 2', async () => {
    const r = await runInProcess(['help', 'pets', 'list']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^Usage: petstore pets list /);
    expect((await runInProcess(['--env', 'staging', 'help', 'auth', 'login'])).stdout).toMatch(/^Usage: petstore auth login /);
    const unknown = await runInProcess(['help', 'pets', 'lst']);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command 'lst'/);
  });
});

describe('petstore help and --version (built CLI)', () => {
  it('--version and -v print the version of package.json, nothing else', async () => {
    for (const flag of ['--version', '-v']) {
      const r = await runCli([flag]);
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe(`${pkg.version}\n`);
      expect(r.stderr).toBe('');
    }
  });

  it('help and --help list every top-level command; exit 0', async () => {
    const help = await runCli(['help']);
    const flag = await runCli(['--help']);
    expect(help.exitCode).toBe(0);
    expect(flag.exitCode).toBe(0);
    expect(help.stdout).toBe(flag.stdout);
    for (const top of new Set([...leaves, ...groups].map((p) => p[0]!))) expect(help.stdout).toMatch(new RegExp(`\\n  ${top}\\b`));
  });

  it('help for a leaf of the built CLI shows its examples', async () => {
    const r = await runCli(['pets', 'help', 'add']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain('Examples:\n  $ petstore pets add --name Rex --category-id 1');
  });

  it('help for an unknown command is a usage error (exit 2)', async () => {
    const r = await runCli(['help', 'nope']);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
  });
});
