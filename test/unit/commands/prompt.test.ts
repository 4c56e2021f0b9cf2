import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { InterruptedError } from '../../../src/errors/errors.js';
import { confirm } from '../../../src/prompt/confirm.js';
import { readAll, readHidden } from '../../../src/prompt/hidden.js';

function terminal() {
  const stdin = new PassThrough() as PassThrough & { isTTY: boolean; isRaw: boolean; setRawMode: (raw: boolean) => void; modes: boolean[] };
  stdin.isTTY = true;
  stdin.isRaw = false;
  stdin.modes = [];
  stdin.setRawMode = (raw: boolean) => {
    stdin.isRaw = raw;
    stdin.modes.push(raw);
  };
  const stderr = new PassThrough();
  let shown = '';
  stderr.on('data', (c: Buffer) => (shown += c.toString()));
  return { stdin, stderr, shown: () => shown };
}

describe('readHidden', () => {
  it('reads a line in raw mode without echoing it, then restores the terminal', async () => {
    const t = terminal();
    const p = readHidden(t, 'API key: ');
    t.stdin.write('sk_secret');
    t.stdin.write('_more\r');
    expect(await p).toBe('sk_secret_more');
    expect(t.shown()).toBe('API key: \n');
    expect(t.stdin.modes).toEqual([true, false]);
  });

  it('handles backspace, Ctrl-U and escape sequences', async () => {
    const t = terminal();
    const p = readHidden(t, '? ');
    t.stdin.write('abc\u007f\u007fX\u0015key\u001b[A\u001bOB1\b2\n');
    expect(await p).toBe('key2');
  });

  it('rejects with InterruptedError on Ctrl-C, restoring raw mode', async () => {
    const t = terminal();
    const p = readHidden(t, '? ');
    t.stdin.write('abc\u0003');
    await expect(p).rejects.toBeInstanceOf(InterruptedError);
    expect(t.stdin.isRaw).toBe(false);
  });

  it('rejects on Ctrl-D on an empty line and on abort', async () => {
    const t = terminal();
    const p = readHidden(t, '? ');
    t.stdin.write('\u0004');
    await expect(p).rejects.toBeInstanceOf(InterruptedError);
    const u = terminal();
    const ac = new AbortController();
    const q = readHidden(u, '? ', ac.signal);
    ac.abort();
    await expect(q).rejects.toBeInstanceOf(InterruptedError);
  });
});

describe('readAll', () => {
  it('reads everything piped', async () => {
    const s = new PassThrough();
    s.end('a\nb\n');
    expect(await readAll(s)).toBe('a\nb\n');
  });

  it('refuses more than the limit', async () => {
    const s = new PassThrough();
    s.end('x'.repeat(100));
    await expect(readAll(s, 10)).rejects.toThrow('expected only an API key');
  });
});

describe('confirm', () => {
  const waitFor = async (t: ReturnType<typeof terminal>, text: string) => {
    while (!t.shown().includes(text)) await new Promise((r) => setTimeout(r, 5));
  };
  /** Types once the question is shown (inquirer drops keys typed before it is ready). */
  async function ask(typed: string | undefined, signal?: AbortSignal) {
    const t = terminal();
    const p = confirm(t, 'Create 2 pets?', signal);
    await waitFor(t, '[y/N]');
    if (typed !== undefined) t.stdin.write(typed);
    return { t, p };
  }

  it('asks on stderr with No as the default; only y or yes confirms', async () => {
    for (const [typed, answer] of [
      ['y\r', true],
      ['YES\r', true],
      ['\r', false],
      ['n\r', false],
      ['no\r', false],
    ] as const) {
      const { t, p } = await ask(typed);
      expect(await p, typed).toBe(answer);
      expect(t.shown()).toContain('? Create 2 pets? [y/N]');
      expect(t.stdin.isRaw).toBe(false);
      expect(t.stderr.writableEnded).toBe(false);
    }
  });

  it('asks again after an answer that is neither yes nor no', async () => {
    const { t, p } = await ask('maybe\r');
    await waitFor(t, 'You must answer');
    t.stdin.write('\u0015n\r');
    expect(await p).toBe(false);
  });

  it('Ctrl-C and an abort reject with InterruptedError; Ctrl-D answers No', async () => {
    await expect((await ask('\u0003')).p).rejects.toBeInstanceOf(InterruptedError);
    const ac = new AbortController();
    const { p } = await ask(undefined, ac.signal);
    ac.abort();
    await expect(p).rejects.toBeInstanceOf(InterruptedError);
    expect(await (await ask('\u0004')).p).toBe(false);
  });
});
