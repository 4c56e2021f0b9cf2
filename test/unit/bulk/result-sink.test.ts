// Result lines on stdout (src/bulk/result-sink.ts): each written as it comes; a full stdout makes the run wait.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
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

describe('StdoutLines', () => {
  it('writes each line as it comes', () => {
    const s = sink();
    const lines = new StdoutLines({ stream: s.stream, failed: s.failed });
    expect(lines.write('a\n')).toBeUndefined();
    expect(lines.write('b\n')).toBeUndefined();
    expect(s.writes).toEqual(['a\n', 'b\n']);
  });

  it('a full stdout: a promise that settles when it drains', async () => {
    const writes: string[] = [];
    const stream = new Writable({
      highWaterMark: 4,
      write(chunk, _enc, cb) {
        writes.push(String(chunk));
        setImmediate(cb);
      },
    });
    const lines = new StdoutLines({ stream, failed: new AbortController().signal });
    const waiting = lines.write('a long line\n');
    expect(waiting).toBeInstanceOf(Promise);
    await waiting;
    expect(writes).toEqual(['a long line\n']);
  });

  it('writes nothing once stdout failed', () => {
    const s = sink();
    const ac = new AbortController();
    ac.abort(new Error('EPIPE'));
    const lines = new StdoutLines({ stream: s.stream, failed: ac.signal });
    expect(lines.write('a\n')).toBeUndefined();
    expect(s.writes).toEqual([]);
  });
});
