// createIO: what is decided once, and what is asked only when a command needs it.
import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createIO } from '../../../src/io/io.js';

const out = (isTTY: boolean) => Object.assign(new PassThrough(), { isTTY });

describe('createIO', () => {
  it('asks whether stdin is a terminal only when a command wants to know, and once', () => {
    let asked = 0;
    let built = 0;
    const io = createIO({
      stdout: out(false),
      stderr: out(true),
      stdin: () => {
        built++;
        return Readable.from([]);
      },
      stdinIsTTY: () => {
        asked++;
        return true;
      },
      env: {},
    });
    // Colour, spinner and width decisions do not need stdin (so --help never loads tty).
    expect([io.colorStdout, io.colorStderr, io.spinner, io.columns]).toEqual([false, true, true, undefined]);
    expect(asked).toBe(0);
    expect(io.canPrompt).toBe(true);
    expect(io.stdinIsTTY).toBe(true);
    expect(asked).toBe(1);
    expect(built).toBe(0);
  });

  it('without a way to ask, stdin itself tells (built on first use); --no-input rules out prompts', () => {
    let built = 0;
    const io = createIO({
      stdout: out(false),
      stderr: out(true),
      stdin: () => {
        built++;
        return Object.assign(Readable.from([]), { isTTY: true });
      },
      env: {},
      input: false,
    });
    expect(built).toBe(0);
    expect(io.canPrompt).toBe(false);
    expect(io.stdinIsTTY).toBe(true);
    expect(built).toBe(1);
  });
});
