// createIO: what is decided once, and what is asked only when a command needs it.
import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createIO, type IOInputs } from '../../../src/io/io.js';

const out = (isTTY: boolean) => Object.assign(new PassThrough(), { isTTY });

/** An IO on a non-TTY stdout and a TTY stderr that counts how often stdin is built and asked about. */
function counted(extra: Partial<IOInputs>, stdinTTY: boolean) {
  const counts = { built: 0, asked: 0 };
  const io = createIO({
    stdout: out(false),
    stderr: out(true),
    stdin: () => {
      counts.built++;
      return Object.assign(Readable.from([]), { isTTY: stdinTTY });
    },
    env: {},
    ...extra,
  });
  return { io, counts };
}

describe('createIO', () => {
  it('asks whether stdin is a terminal only when a command wants to know, and once', () => {
    const { io, counts } = counted(
      {
        stdinIsTTY: () => {
          counts.asked++;
          return true;
        },
      },
      false,
    );
    // Colour, spinner and width decisions do not need stdin (so --help never loads tty).
    expect([io.colorStdout, io.colorStderr, io.spinner, io.columns]).toEqual([false, true, true, undefined]);
    expect(counts.asked).toBe(0);
    expect(io.canPrompt).toBe(true);
    expect(io.stdinIsTTY).toBe(true);
    expect(counts).toEqual({ asked: 1, built: 0 });
  });

  it('without a way to ask, stdin itself tells (built on first use); --no-input rules out prompts', () => {
    const { io, counts } = counted({ input: false }, true);
    expect(counts.built).toBe(0);
    expect(io.canPrompt).toBe(false);
    expect(io.stdinIsTTY).toBe(true);
    expect(counts.built).toBe(1);
  });
});

describe('stdoutFailed', () => {
  it('aborts at the first error on stdout, with that error, and keeps later ones from being uncaught; one listener however often createIO runs', () => {
    const stdout = out(false);
    const a = createIO({ stdout, stderr: out(false), stdin: Readable.from([]), env: {} });
    const b = createIO({ stdout, stderr: out(false), stdin: Readable.from([]), env: {} });
    expect(a.stdout.failed).toBe(b.stdout.failed);
    expect(stdout.listenerCount('error')).toBe(1);
    expect(a.stdout.failed.aborted).toBe(false);
    const epipe = Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });
    stdout.emit('error', epipe);
    stdout.emit('error', new Error('again'));
    expect(a.stdout.failed.aborted).toBe(true);
    expect(a.stdout.failed.reason).toBe(epipe);
  });
});
