// src/bulk/file-stream.ts: a regular file read on the main thread, one piece per turn of the event
// loop: the bytes exactly, a file that cannot be opened as the stream's 'error', no read after a
// destroy, and timers (Ctrl-C, a closed stdout) get their turn between pieces.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileStream } from '../../../src/bulk/file-stream.js';

let dir = '';
let path = '';
const bytes = Buffer.from(Array.from({ length: 100_000 }, (_, i) => (i * 7919) % 256));
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'file-stream-test-'));
  path = join(dir, 'input');
  writeFileSync(path, bytes);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('FileStream', () => {
  it('gives the file byte for byte, in pieces of the size asked for (the last one shorter)', async () => {
    const pieces: Buffer[] = [];
    for await (const piece of new FileStream(path, 16_384)) pieces.push(piece as Buffer);
    expect(Buffer.concat(pieces).equals(bytes)).toBe(true);
    expect(pieces.map((p) => p.length)).toEqual([...Array(6).fill(16_384), 100_000 - 6 * 16_384]);
  });

  it('a file that cannot be opened is an error of the stream, not a throw', async () => {
    const stream = new FileStream(join(dir, 'missing'), 16_384);
    await expect(
      (async () => {
        for await (const _ of stream) {
        }
      })(),
    ).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('stops reading when destroyed, and closes', async () => {
    const stream = new FileStream(path, 1024);
    let got = 0;
    const closed = new Promise((resolve) => stream.once('close', resolve));
    stream.on('data', (piece: Buffer) => {
      got += piece.length;
      if (got >= 4096) stream.destroy();
    });
    await closed;
    // A piece already being read when it was destroyed is not handed out.
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(got).toBe(4096);
  });

  it('lets timers run between pieces (a Ctrl-C is heard while a big file is read)', async () => {
    let fired = -1;
    let pieces = 0;
    setTimeout(() => {
      fired = pieces;
    }, 0);
    for await (const _ of new FileStream(path, 1024)) pieces++;
    expect(pieces).toBe(98);
    expect(fired).toBeGreaterThanOrEqual(0);
    expect(fired).toBeLessThan(pieces);
  });
});
