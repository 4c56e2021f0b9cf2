import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { InterruptedError } from '../../../src/errors/errors.js';
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
