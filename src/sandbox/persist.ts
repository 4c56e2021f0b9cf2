// The --data file: the pets kept across restarts.
//
// Format (UTF-8 JSON, int64 values as exact integer literals):
//   {"version":1,"nextId":12,"pets":[
//   {"id":1,"name":"Rex","categoryId":3,"status":"available"},
//   ...
//   ]}
// Writes are atomic (write-file-atomic: temp file in the same directory, fsync,
// rename), debounced and serialised: one write at a time, the latest state wins.

import { open, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { PET_STATUSES } from '../flag-values.js';
import { INT64_MAX, parseJson, toInt64 } from '../json/int64.js';
import { SandboxStartError } from './errors.js';
import { isPetStatus, type Pet } from './types.js';

export interface DataFile {
  nextId: bigint;
  pets: Pet[];
}

class CorruptData extends Error {}

function fail(reason: string): never {
  throw new CorruptData(reason);
}

/** Validates the parsed file content. */
function decodeData(value: unknown): DataFile {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail('the top level must be a JSON object');
  const doc = value as Record<string, unknown>;
  if (doc.version !== 1) fail(`unsupported "version" ${JSON.stringify(doc.version) ?? 'undefined'} (expected 1)`);
  if (!Array.isArray(doc.pets)) fail('"pets" must be an array');
  const seen = new Set<bigint>();
  const pets: Pet[] = [];
  let maxId: bigint | undefined;
  doc.pets.forEach((item: unknown, i: number) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) fail(`pets[${i}] must be an object`);
    const p = item as Record<string, unknown>;
    const id = toInt64(p.id);
    if (id === undefined) fail(`pets[${i}].id must be an int64 integer`);
    if (seen.has(id)) fail(`pets[${i}].id ${id} is a duplicate`);
    seen.add(id);
    if (typeof p.name !== 'string') fail(`pets[${i}].name must be a string`);
    const categoryId = toInt64(p.categoryId);
    if (categoryId === undefined) fail(`pets[${i}].categoryId must be an int64 integer`);
    const pet: Pet = { id, name: p.name, categoryId };
    if (p.status !== undefined) {
      if (!isPetStatus(p.status)) fail(`pets[${i}].status must be ${PET_STATUSES.slice(0, -1).join(', ')} or ${PET_STATUSES.at(-1)}`);
      pet.status = p.status;
    }
    pets.push(pet);
    if (maxId === undefined || id > maxId) maxId = id;
  });
  let nextId: bigint;
  if (doc.nextId === undefined) nextId = maxId === undefined ? 1n : maxId + 1n;
  else {
    const n = typeof doc.nextId === 'bigint' ? doc.nextId : toInt64(doc.nextId);
    // nextId may be INT64_MAX + 1 once the last id is used up.
    if (n === undefined || n < 1n || n > INT64_MAX + 1n) fail('"nextId" must be a positive integer');
    nextId = n;
  }
  if (maxId !== undefined && nextId <= maxId) nextId = maxId + 1n;
  return { nextId, pets };
}

/** Loads the data file; undefined when it does not exist. Throws SandboxStartError when unusable. */
export async function loadData(file: string): Promise<DataFile | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new SandboxStartError(`cannot read --data file ${file}: ${(error as Error).message}`, { cause: error });
  }
  if (text.trim().length === 0) return undefined;
  try {
    return decodeData(parseJson(text));
  } catch (error) {
    const reason = error instanceof CorruptData ? error.message : `not valid JSON (${(error as Error).message})`;
    throw new SandboxStartError(
      `cannot load --data file ${file}: ${reason}. The file was left untouched; fix it, move it away or choose another --data file.`,
      { cause: error },
    );
  }
}

/**
 * Writes `text` to `file` atomically with write-file-atomic (loaded on the first write): a temp file in
 * the same directory, fsync, rename; the temp file is removed on failure and on exit. fsync stays on:
 * the file holds writes the sandbox has acknowledged, which must survive a crash once written. A new
 * file gets 0666 minus the umask (0644 as a rule), an existing one keeps its mode and owner.
 */
export async function writeAtomic(file: string, text: string | Buffer): Promise<void> {
  const { default: writeFileAtomic } = await import('write-file-atomic');
  await writeFileAtomic(file, text, { fsync: true });
  // write-file-atomic syncs the file, not the rename: make that durable too. Best effort, as not
  // every platform can fsync a directory.
  try {
    const d = await open(dirname(file), 'r');
    try {
      await d.sync();
    } finally {
      await d.close();
    }
  } catch {
    // best effort
  }
}

export interface PersisterOptions {
  /** Least delay between a change and its write, in ms. */
  delayMs?: number;
  onError?: (error: unknown) => void;
  onWrite?: () => void;
}

/**
 * Debounced, serialised snapshot writer. markDirty() after each change; the
 * snapshot is taken when the write starts, so the file always holds a whole,
 * consistent state. The delay grows with the cost of a write so large stores
 * do not spend the event loop serialising.
 */
export class Persister {
  private dirty = false;
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> | undefined;
  private lastCostMs = 0;
  private lastSyncCostMs = 0;
  private closed = false;
  writes = 0;
  errors = 0;

  constructor(
    readonly file: string,
    private readonly snapshot: () => string,
    private readonly options: PersisterOptions = {},
  ) {}

  markDirty(): void {
    this.dirty = true;
    this.schedule();
  }

  private schedule(): void {
    if (this.closed || this.timer || this.writing) return;
    // Keep the event-loop time spent on snapshots to about a tenth.
    const delay = Math.max(this.options.delayMs ?? 50, 2 * this.lastCostMs, 10 * this.lastSyncCostMs);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.writeOnce().then(
        () => {
          if (this.dirty) this.schedule();
        },
        (error: unknown) => {
          this.options.onError?.(error);
          if (this.dirty) this.schedule();
        },
      );
    }, delay);
    this.timer.unref();
  }

  private writeOnce(): Promise<void> {
    if (this.writing) return this.writing;
    if (!this.dirty) return Promise.resolve();
    this.dirty = false;
    const started = performance.now();
    const bytes = Buffer.from(this.snapshot(), 'utf8');
    this.lastSyncCostMs = performance.now() - started;
    const p = writeAtomic(this.file, bytes).then(
      () => {
        this.writes++;
        this.lastCostMs = performance.now() - started;
        this.options.onWrite?.();
      },
      (error: unknown) => {
        this.errors++;
        this.dirty = true;
        throw error;
      },
    );
    this.writing = p.finally(() => {
      this.writing = undefined;
    });
    return this.writing;
  }

  /** Writes now if anything changed, after any write in progress. Rejects when the write fails. */
  async flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.writing) await this.writing.catch(() => {});
    if (this.dirty) await this.writeOnce();
  }

  /** Final flush; no more scheduled writes afterwards. */
  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
  }
}
