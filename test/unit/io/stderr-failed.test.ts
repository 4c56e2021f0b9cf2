// stderrFailed, and stdout and stderr on one pipe (`2>&1 | head -1`): see test/e2e/closed-streams.test.ts
// for what the user sees.
import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createIO } from '../../../src/io/io.js';

const errno = (code: string) => Object.assign(new Error(`write ${code}`), { code });

function streams(shared: boolean | undefined) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let asked = 0;
  const sharedPipe =
    shared === undefined
      ? undefined
      : () => {
          asked++;
          return shared;
        };
  const io = () => createIO({ stdout, stderr, stdin: Readable.from([]), env: {}, sharedPipe });
  return { stdout, stderr, io, asked: () => asked };
}

describe('stderrFailed', () => {
  it('aborts at the first error on stderr, with that error; later ones are not uncaught; one listener however often createIO runs', () => {
    const s = streams(undefined);
    const [a, b] = [s.io(), s.io()];
    expect(a.stderr.failed).toBe(b.stderr.failed);
    expect(s.stderr.listenerCount('error')).toBe(1);
    const epipe = errno('EPIPE');
    s.stderr.emit('error', epipe);
    s.stderr.emit('error', errno('EPIPE'));
    expect(a.stderr.failed.reason).toBe(epipe);
    expect(a.stdoutFailed.aborted).toBe(false);
  });

  it('one pipe for both: an EPIPE on either aborts the other with it; whether they share one is asked once, and only then', () => {
    const s = streams(true);
    const io = s.io();
    s.io();
    expect(s.asked()).toBe(0);
    const epipe = errno('EPIPE');
    s.stderr.emit('error', epipe);
    expect(io.stdoutFailed.reason).toBe(epipe);
    expect(s.asked()).toBe(1);

    const t = streams(true);
    const other = t.io();
    t.stdout.emit('error', epipe);
    expect(other.stderr.failed.reason).toBe(epipe);
  });

  it('a full disk on stderr, or an EPIPE on a stderr that is not stdout, leaves stdout alone', () => {
    const full = streams(true);
    const first = full.io();
    full.stderr.emit('error', errno('ENOSPC'));
    expect(first.stderr.failed.aborted).toBe(true);
    expect(first.stdoutFailed.aborted).toBe(false);
    expect(full.asked()).toBe(0);

    const apart = streams(false);
    const io = apart.io();
    apart.stderr.emit('error', errno('EPIPE'));
    expect(io.stderr.failed.aborted).toBe(true);
    expect(io.stdoutFailed.aborted).toBe(false);
  });
});
