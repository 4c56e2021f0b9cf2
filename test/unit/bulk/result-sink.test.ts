// Result lines on stdout (src/bulk/result-sink.ts): those of 10 ms written together; a full stdout makes the run wait.
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
  it('writes the lines of 10 ms together, in order', async () => {
    const s = sink();
    const lines = new StdoutLines({ stream: s.stream, failed: s.failed });
    expect(lines.write('a\n')).toBeUndefined();
    expect(lines.write('b\n')).toBeUndefined();
    expect(s.writes).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(s.writes).toEqual(['a\nb\n']);
    lines.write('c\n');
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(s.writes).toEqual(['a\nb\n', 'c\n']);
  });

  it('flush() writes what it holds at once (the end of a run), and writeText comes after it', async () => {
    const s = sink();
    const lines = new StdoutLines({ stream: s.stream, failed: s.failed });
    lines.write('a\n');
    await lines.writeText('held\n', 'utf8');
    lines.write('b\n');
    lines.flush();
    expect(s.writes).toEqual(['a\n', 'held\n', 'b\n']);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(s.writes).toEqual(['a\n', 'held\n', 'b\n']);
  });

  it('goes through `around` once per write (a terminal takes its live line down first)', () => {
    const s = sink();
    const seen: string[] = [];
    const lines = new StdoutLines({ stream: s.stream, failed: s.failed }, (write) => {
      seen.push('around');
      write();
    });
    lines.write('a\n');
    lines.write('b\n');
    lines.flush();
    expect(seen).toEqual(['around']);
    expect(s.writes).toEqual(['a\nb\n']);
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
    expect(lines.write('a long line\n')).toBeUndefined();
    lines.flush();
    const waiting = lines.write('more\n');
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
    lines.flush();
    expect(s.writes).toEqual([]);
  });
});
