import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { buildProgram, run } from '../../src/cli.js';
import { systemClock } from '../../src/time/clock.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { hasScript, runOnPty } from '../helpers/pty.js';

// dist/help.json and dist/help/ (scripts/build.mjs): help pages bin/petstore prints without loading
// the application, into a pipe or a file and on a terminal of any width. Each must be exactly what the
// CLI itself prints for that command line there.

const pages = JSON.parse(readFileSync(new URL('../../dist/help.json', import.meta.url), 'utf8')) as {
  pages: string[];
  byLine: Record<string, number>;
  tty: Record<string, string>;
};
const lines = Object.keys(pages.byLine).map((line) => (line === '' ? [] : line.split(' ')));
/** A line's terminal pages: [least columns, page], ascending. */
const ttyPages = (line: string): [number, string][] => JSON.parse(readFileSync(new URL(`../../dist/${pages.tty[line]}`, import.meta.url), 'utf8'));
const ttyPage = (line: string, columns: number) => ttyPages(line).findLast(([least]) => least <= columns)?.[1];

/** What the CLI prints for argv on a terminal `columns` wide (in process: run() with a stdout that says so). */
async function onTerminal(argv: string[], columns: number): Promise<string> {
  const out: string[] = [];
  const sink = (into: string[] | undefined) =>
    new Writable({
      write(chunk, _encoding, done) {
        into?.push(String(chunk));
        done();
      },
    });
  const stdout = Object.assign(sink(out), { isTTY: true, columns });
  const code = await run([...argv], {
    stdout,
    stderr: sink(undefined),
    stdin: () => process.stdin,
    stdinIsTTY: false,
    env: {},
    clock: systemClock,
    signal: new AbortController().signal,
  });
  expect(code).toBe(0);
  return out.join('');
}

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

  it('on a terminal: a page for every width, each what the CLI prints at the first and last width it stands for, and wider', async () => {
    expect(Object.keys(pages.tty).sort()).toEqual(Object.keys(pages.byLine).sort());
    for (const argv of lines) {
      const line = argv.join(' ');
      const set = ttyPages(line);
      expect(set[0]?.[0], line).toBe(1);
      for (const [i, [least, page]] of set.entries()) {
        const until = set[i + 1]?.[0];
        expect([line, least, await onTerminal(argv, least)]).toEqual([line, least, page]);
        if (until !== undefined) expect([line, until - 1, await onTerminal(argv, until - 1)]).toEqual([line, until - 1, page]);
        else for (const wide of [least + 1, 200, 1000]) expect([line, wide, await onTerminal(argv, wide)]).toEqual([line, wide, page]);
      }
    }
  });

  it.skipIf(!hasScript)(
    'on a real terminal, narrow and wide: the page wrapped to its width, as the CLI prints it, without loading the application',
    async () => {
      const t = tempDir();
      try {
        const probe = appProbe(t.dir);
        for (const cols of [60, 80, 132]) {
          const fast = await runOnPty(['pets', 'add', '--help'], { env: { PATH: process.env.PATH, ...probe.env }, cols });
          expect(fast.exitCode).toBe(0);
          expect(fast.output).toBe(ttyPage('pets add --help', cols));
          // FORCE_COLOR=0 makes the CLI itself print it.
          const full = await runOnPty(['pets', 'add', '--help'], { env: { PATH: process.env.PATH, FORCE_COLOR: '0' }, cols });
          expect(full.output).toBe(fast.output);
        }
        expect(ttyPage('pets add --help', 60)).not.toBe(ttyPage('pets add --help', 132));
        expect(probe.loaded()).toBe(false);
      } finally {
        t.cleanup();
      }
    },
  );
});
