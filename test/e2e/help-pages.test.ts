import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { hasScript, runOnPty } from '../helpers/pty.js';

// dist/help.json (scripts/build.mjs): help pages bin/petstore prints without loading the application
// when stdout is no terminal. Each must be exactly what the CLI itself prints for that command line.

const pages = JSON.parse(readFileSync(new URL('../../dist/help.json', import.meta.url), 'utf8')) as { pages: string[]; byLine: Record<string, number> };
const lines = Object.keys(pages.byLine).map((line) => (line === '' ? [] : line.split(' ')));

/** A preload that notes in `file` whether dist/main.js was loaded (the application, not a help page). */
function appProbe(dir: string): { env: Record<string, string>; loaded: () => boolean } {
  const file = join(dir, 'loaded');
  const preload = join(dir, 'probe.mjs');
  writeFileSync(file, '');
  writeFileSync(
    preload,
    `import { appendFileSync } from 'node:fs';
import { registerHooks } from 'node:module';
registerHooks({ resolve(specifier, context, next) { const r = next(specifier, context); if (r.url.endsWith('/dist/main.js')) appendFileSync(${JSON.stringify(file)}, 'main\\n'); return r; } });
`,
  );
  return { env: { NODE_OPTIONS: `--import ${preload}` }, loaded: () => readFileSync(file, 'utf8').includes('main') };
}

describe('help pages (dist/help.json)', () => {
  it('cover every command and group, with --help, -h and help before it', () => {
    const paths: string[][] = [];
    const walk = (cmd: ReturnType<typeof buildProgram>, path: string[]) => {
      for (const sub of cmd.commands) {
        if ((sub as unknown as { _hidden?: boolean })._hidden === true) continue;
        paths.push([...path, sub.name()]);
        walk(sub, [...path, sub.name()]);
      }
    };
    walk(buildProgram({ lazy: () => async () => {} }), []);
    expect(paths.length).toBeGreaterThan(15);
    for (const p of [[], ...paths]) {
      for (const line of [
        [...p, '--help'],
        [...p, '-h'],
        ['help', ...p],
      ])
        expect(Object.hasOwn(pages.byLine, line.join(' ')), line.join(' ')).toBe(true);
    }
  });

  it('each is what the CLI itself prints for its command line (FORCE_COLOR=0 makes the CLI print it), and is printed without loading the application', async () => {
    const t = tempDir();
    try {
      const probe = appProbe(t.dir);
      for (const argv of lines) {
        const page = pages.pages[pages.byLine[argv.join(' ')]!]!;
        const full = await runCli(argv, { env: { FORCE_COLOR: '0' } });
        expect([argv, full.exitCode, full.stderr, full.stdout]).toEqual([argv, 0, '', page]);
        const fast = await runCli(argv, { env: probe.env });
        expect([argv, fast.exitCode, fast.stderr, fast.stdout]).toEqual([argv, 0, '', page]);
      }
      expect(probe.loaded()).toBe(false);
      // The probe does see the application load.
      await runCli(['pets', 'list', '--help', '--json'], { env: probe.env });
      expect(probe.loaded()).toBe(true);
    } finally {
      t.cleanup();
    }
  }, 120_000);

  it('a variable that forces colour, or a command line with anything else on it, gets the help from the CLI itself', async () => {
    const t = tempDir();
    try {
      const probe = appProbe(t.dir);
      const forced = await runCli(['pets', '--help'], { env: { ...probe.env, CLICOLOR_FORCE: '1' } });
      expect(forced.exitCode).toBe(0);
      expect(probe.loaded()).toBe(true);
    } finally {
      t.cleanup();
    }
  });

  it.skipIf(!hasScript)('on a terminal, the help is wrapped to its width by the CLI, not read from a page', async () => {
    const narrow = await runOnPty(['pets', 'add', '--help'], { env: { PATH: process.env.PATH }, cols: 60 });
    expect(narrow.exitCode).toBe(0);
    const page = pages.pages[pages.byLine['pets add --help']!]!;
    expect(narrow.output).toContain('Usage: petstore pets add');
    expect(narrow.output).not.toBe(page);
  });
});
