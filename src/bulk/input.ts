import { createReadStream, createWriteStream, fstatSync, mkdtempSync, rmSync, type Stats, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createHash } from 'node:crypto';
import { join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { UsageError } from '../errors/errors.js';
import type { IO } from '../io/io.js';
import { FileStream } from './file-stream.js';
import { formatFromName, sniffFormat, type InputFormat } from './read-records.js';

/** How much of the input each read takes: smaller reads than fs streams' 64 KB keep a dry run's peak memory lower. */
const READ_BYTES = 16 * 1024;

/** A bulk input that can be read more than once (stdin is spooled to a private temp file). */
export interface ReplayableInput {
  format: InputFormat;
  /** A fresh stream over the whole input. */
  open(): Readable;
  /** Removes the spool file, if any. */
  dispose(): void;
  label: string;
  /** The input's absolute path, or "-" for stdin. */
  absPath: string;
  /** The input file's device and inode (stdin's when redirected from a file), so no output is written over it. */
  identity: { dev: number; ino: number } | undefined;
  /** Its size in bytes (stdin: as spooled). */
  size: number;
  /** sha256 of its bytes, hex (read once, on first use). */
  digest(): Promise<string>;
}

async function sha256(stream: Readable): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of stream) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

async function firstChunk(path: string): Promise<string> {
  const stream = createReadStream(path, { encoding: 'utf8', start: 0, end: 4095 });
  let head = '';
  for await (const chunk of stream) head += chunk as string;
  return head;
}

/** Copies stdin to a 0600 file in a 0700 temp folder, so validation and sending read the same bytes. */
async function spool(stdin: Readable): Promise<{ path: string; dispose: () => void }> {
  const dir = mkdtempSync(join(tmpdir(), 'petstore-input-'));
  const path = join(dir, 'stdin');
  await pipeline(stdin, createWriteStream(path, { mode: 0o600 }));
  return { path, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/** `io` is read only for `--file -`: its stdin stream is built on first use. */
export async function openInput(file: string, formatFlag: string | undefined, io: Pick<IO, 'stdin' | 'stdinIsTTY'>): Promise<ReplayableInput> {
  let format = formatFromName(file === '-' ? '' : file, formatFlag);
  let path = file;
  let dispose = () => {};
  let identity: Stats | undefined;
  if (file === '-') {
    if (io.stdinIsTTY) throw new UsageError('--file - reads records from stdin, but stdin is a terminal; pipe a file into it or give a path');
    // `< pets.ndjson`: stdin is a file stream over that file (its fd is closed once read, so look now).
    const fd = (io.stdin as { fd?: unknown }).fd;
    if (typeof fd === 'number') identity = fstatSync(fd);
    ({ path, dispose } = await spool(io.stdin));
  } else {
    try {
      identity = statSync(file);
    } catch {
      throw new UsageError(`--file ${file}: no such file`);
    }
    if (!identity.isFile()) throw new UsageError(`--file ${file}: not a regular file`);
  }
  format ??= sniffFormat(await firstChunk(path));
  let digest: Promise<string> | undefined;
  return {
    format,
    open: () => new FileStream(path, READ_BYTES),
    dispose,
    label: file === '-' ? 'stdin' : file,
    absPath: file === '-' ? '-' : resolve(file),
    identity,
    size: statSync(path).size,
    digest: () => (digest ??= sha256(createReadStream(path))),
  };
}
