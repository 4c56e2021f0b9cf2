// The process's stdout and stderr (src/io/stdio.ts) over real descriptors: a FIFO stands for the pipe a
// shell gives, a file for `> file`, /dev/null for a character device (which may be a terminal).
import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, readFileSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { ProcessOutput } from '../../../src/io/stdio.js';

const dir = mkdtempSync(join(tmpdir(), 'petstore-stdio-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
/** A FIFO opened at both ends; `nonBlocking` as a parent that set O_NONBLOCK on the pipe would leave it. */
function fifo(nonBlocking = false): { read: number; write: number; drain: () => string } {
  const path = join(dir, `fifo-${++n}`);
  execFileSync('mkfifo', [path]);
  const read = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  const write = openSync(path, constants.O_WRONLY | (nonBlocking ? constants.O_NONBLOCK : 0));
  const drain = () => {
    const chunks: Buffer[] = [];
    const buf = Buffer.alloc(65536);
    for (;;) {
      try {
        const got = readSync(read, buf);
        if (got === 0) break;
        chunks.push(Buffer.from(buf.subarray(0, got)));
      } catch {
        break;
      }
    }
    return Buffer.concat(chunks).toString();
  };
  return { read, write, drain };
}

/** The stream ProcessOutput makes when it needs one, and whether it was made. */
function maker() {
  const stream = new PassThrough();
  let made = 0;
  return {
    make: () => {
      made++;
      return stream;
    },
    made: () => made,
    text: () => String(stream.read() ?? ''),
  };
}

describe('the process output on a pipe or a file', () => {
  it('a pipe: short text goes straight to the descriptor, no stream is made; it is no terminal', () => {
    const p = fifo();
    const m = maker();
    const out = new ProcessOutput(p.write, m.make);
    expect(out.isTTY).toBe(false);
    expect(out.write('one\n')).toBe(true);
    expect(out.write('two\n')).toBe(true);
    expect(p.drain()).toBe('one\ntwo\n');
    expect(m.made()).toBe(0);
    closeSync(p.write);
  });

  it('past 4 KiB the stream takes over, and the text stays in order', () => {
    const p = fifo();
    const m = maker();
    const out = new ProcessOutput(p.write, m.make);
    out.write('first\n');
    out.write('x'.repeat(5000));
    out.write('last\n');
    expect(m.made()).toBe(1);
    expect(p.drain()).toBe('first\n');
    expect(m.text()).toBe(`${'x'.repeat(5000)}last\n`);
    closeSync(p.write);
  });

  it('a reader that left (EPIPE): the write fails quietly, `failed` holds the error, later text is dropped', () => {
    const p = fifo();
    closeSync(p.read);
    const m = maker();
    const out = new ProcessOutput(p.write, m.make);
    expect(out.write('lost\n')).toBe(false);
    expect(out.failed.aborted).toBe(true);
    expect((out.failed.reason as NodeJS.ErrnoException).code).toBe('EPIPE');
    expect(out.write('also lost\n')).toBe(false);
    expect(m.made()).toBe(0);
    closeSync(p.write);
  });

  it('a full non-blocking pipe (EAGAIN): the rest goes through the stream, in order', () => {
    const p = fifo(true);
    let filled = 0;
    try {
      for (;;) filled += writeSync(p.write, Buffer.alloc(4096, 'f'));
    } catch (error) {
      expect((error as NodeJS.ErrnoException).code).toBe('EAGAIN');
    }
    const m = maker();
    const out = new ProcessOutput(p.write, m.make);
    out.write('after\n');
    out.write('more\n');
    expect(out.failed.aborted).toBe(false);
    expect(m.made()).toBe(1);
    expect(p.drain()).toBe('f'.repeat(filled));
    expect(m.text()).toBe('after\nmore\n');
    closeSync(p.write);
  });

  it('a file: written straight to it', () => {
    const path = join(dir, 'out.txt');
    const fd = openSync(path, 'w');
    const m = maker();
    const out = new ProcessOutput(fd, m.make);
    out.write('to a file\n');
    closeSync(fd);
    expect(readFileSync(path, 'utf8')).toBe('to a file\n');
    expect(m.made()).toBe(0);
  });

  it('a character device (/dev/null, as a terminal would be): the stream is asked whether it is a terminal, and writes go to it', () => {
    const fd = openSync('/dev/null', 'w');
    const m = maker();
    const out = new ProcessOutput(fd, m.make);
    expect(out.isTTY).toBe(false);
    expect(m.made()).toBe(1);
    out.write('through the stream\n');
    expect(m.text()).toBe('through the stream\n');
    closeSync(fd);
  });

  it('a failed write on the stream it made also aborts `failed`', () => {
    const fd = openSync('/dev/null', 'w');
    const m = maker();
    const out = new ProcessOutput(fd, m.make);
    const stream = out.stream;
    stream.emit('error', Object.assign(new Error('write ENOSPC'), { code: 'ENOSPC' }));
    expect((out.failed.reason as NodeJS.ErrnoException).code).toBe('ENOSPC');
    closeSync(fd);
  });
});
