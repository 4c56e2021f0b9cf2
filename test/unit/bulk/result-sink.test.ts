// Result lines on stdout (src/bulk/result-sink.ts): into a pipe or a file, the lines of 10 ms (or
// 64 KB) in one write; every turn on a terminal.
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { StdoutLines } from '../../../src/bulk/result-sink.js';

function sink() {
  const writes: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      writes.push(String(chunk));
      cb();
    },
  });
  return { writes, stream, failed: new AbortController().signal };
}

afterEach(() => vi.useRealTimers());

describe('StdoutLines', () => {
  it('into a pipe or a file: one write for the lines of 10 ms', async () => {
    vi.useFakeTimers();
    const s = sink();
    const lines = new StdoutLines({ stream: s.stream, failed: s.failed });
    for (let i = 0; i < 9; i++) {
      expect(lines.write(`${i}\n`)).toBeUndefined();
      await vi.advanceTimersByTimeAsync(1);
    }
    expect(s.writes).toEqual([]);
    await vi.advanceTimersByTimeAsync(2);
    expect(s.writes).toHaveLength(1);
    expect(s.writes[0]!.split('\n')).toHaveLength(10);
  });

  it('into a pipe or a file: at once when 64 KB are waiting, and whatever is left at flush()', async () => {
    const s = sink();
    const lines = new StdoutLines({ stream: s.stream, failed: s.failed });
    const big = `${'x'.repeat(1023)}\n`;
    for (let i = 0; i < 64; i++) await lines.write(big);
    expect(s.writes).toHaveLength(1);
    lines.write('last\n');
    await lines.flush();
    expect(s.writes.at(-1)).toBe('last\n');
  });

  it('on a terminal: the lines of each turn', async () => {
    const s = sink();
    const lines = new StdoutLines({ stream: s.stream, failed: s.failed }, undefined, true);
    lines.write('a\n');
    lines.write('b\n');
    await new Promise((r) => setImmediate(r));
    lines.write('c\n');
    await new Promise((r) => setImmediate(r));
    expect(s.writes).toEqual(['a\nb\n', 'c\n']);
  });
});
