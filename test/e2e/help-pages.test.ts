import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/cli.js';
import { systemClock } from '../../src/time/clock.js';
import { hasScript, runOnPty } from '../helpers/pty.js';

// Help on a terminal is wrapped to the terminal's width: the built CLI on a real terminal prints what
// run() prints to a stdout that says it is a terminal that wide.

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

describe('help on a terminal', () => {
  it('a narrow terminal gets a page wrapped narrower than a wide one', async () => {
    expect(await onTerminal(['pets', 'add', '--help'], 60)).not.toBe(await onTerminal(['pets', 'add', '--help'], 132));
  });

  it.skipIf(!hasScript)('on a real terminal, narrow and wide: the page wrapped to its width', async () => {
    for (const cols of [60, 80, 132]) {
      const r = await runOnPty(['pets', 'add', '--help'], { env: { PATH: process.env.PATH }, cols });
      expect(r.exitCode).toBe(0);
      expect(r.output).toBe(await onTerminal(['pets', 'add', '--help'], cols));
    }
  });
});
