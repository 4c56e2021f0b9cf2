// The --data file: the pets kept across restarts, read at start (src/sandbox/data-log.ts writes it).
//
// Format 2, an append-only log (UTF-8, one JSON value per line, int64 values as exact integer literals):
//   {"petstore-sandbox-data":2,"nextId":12}
//   {"id":1,"name":"Rex","categoryId":3,"status":"available"}
//   {"id":11,"name":"Tom","categoryId":1}
// The first line is written when the file is compacted (rewritten whole); each created pet is added as
// one line, written before its 201 is sent. The lines end at the first NUL: a machine that crashes can
// leave zero-filled blocks after the last line it synced. A last line without its newline is a create
// the sandbox never acknowledged (the process died writing it): dropped. The next id is never lower than the
// header's nor than the highest id + 1, so an id is never handed out twice.
// Format 1 (earlier versions, read only): {"version":1,"nextId":12,"pets":[...]}.

import { readFile } from 'node:fs/promises';
import { INT64_MAX, parseJson, toInt64 } from '../json/int64.js';
import { isPetStatus, PET_STATUSES, type Pet } from '../pets/pet.js';
import { SandboxStartError } from './errors.js';

export const HEADER_KEY = 'petstore-sandbox-data';

export interface DataFile {
  nextId: bigint;
  pets: Pet[];
  /** The file must be rewritten before anything is appended: an older format, or a torn last line. */
  needsCompaction: boolean;
}

class CorruptData extends Error {}

function fail(reason: string): never {
  throw new CorruptData(reason);
}

function decodePet(item: unknown, where: string): Pet {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) fail(`${where} must be an object`);
  const p = item as Record<string, unknown>;
  const id = toInt64(p.id);
  if (id === undefined) fail(`${where}.id must be an int64 integer`);
  if (typeof p.name !== 'string') fail(`${where}.name must be a string`);
  const categoryId = toInt64(p.categoryId);
  if (categoryId === undefined) fail(`${where}.categoryId must be an int64 integer`);
  const pet: Pet = { id, name: p.name, categoryId };
  if (p.status !== undefined) {
    if (!isPetStatus(p.status)) fail(`${where}.status must be ${PET_STATUSES.slice(0, -1).join(', ')} or ${PET_STATUSES.at(-1)}`);
    pet.status = p.status;
  }
  return pet;
}

function decodeNextId(value: unknown): bigint {
  const n = typeof value === 'bigint' ? value : toInt64(value);
  // nextId may be INT64_MAX + 1 once the last id is used up.
  if (n === undefined || n < 1n || n > INT64_MAX + 1n) fail('"nextId" must be a positive integer');
  return n;
}

/** Checks ids are unique and raises nextId above the highest. */
function assemble(pets: Pet[], nextId: bigint | undefined, where: (i: number) => string, needsCompaction: boolean): DataFile {
  const seen = new Set<bigint>();
  let maxId: bigint | undefined;
  pets.forEach((pet, i) => {
    if (seen.has(pet.id)) fail(`${where(i)}.id ${pet.id} is a duplicate`);
    seen.add(pet.id);
    if (maxId === undefined || pet.id > maxId) maxId = pet.id;
  });
  let next = nextId ?? (maxId === undefined ? 1n : maxId + 1n);
  if (maxId !== undefined && next <= maxId) next = maxId + 1n;
  return { nextId: next, pets, needsCompaction };
}

function decodeVersion1(value: unknown): DataFile {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail('the top level must be a JSON object');
  const doc = value as Record<string, unknown>;
  if (doc.version !== 1) fail(`unsupported "version" ${JSON.stringify(doc.version) ?? 'undefined'} (expected 1)`);
  if (!Array.isArray(doc.pets)) fail('"pets" must be an array');
  const pets = doc.pets.map((item: unknown, i: number) => decodePet(item, `pets[${i}]`));
  return assemble(pets, doc.nextId === undefined ? undefined : decodeNextId(doc.nextId), (i) => `pets[${i}]`, true);
}

/** The log format, or undefined when the first line is not its header. */
function decodeLog(text: string): DataFile | undefined {
  const lines = text.split('\n');
  let header: unknown;
  try {
    header = parseJson(lines[0] ?? '');
  } catch {
    return undefined;
  }
  if (typeof header !== 'object' || header === null || !(HEADER_KEY in header)) return undefined;
  const h = header as Record<string, unknown>;
  if (h[HEADER_KEY] !== 2) fail(`unsupported "${HEADER_KEY}" ${JSON.stringify(h[HEADER_KEY]) ?? 'undefined'} (expected 2)`);
  const nextId = decodeNextId(h.nextId);
  // A last line without its newline was never acknowledged (see the top of this file).
  const torn = !text.endsWith('\n');
  const body = lines.slice(1, torn ? -1 : undefined);
  if (!torn) body.pop();
  const pets: Pet[] = [];
  body.forEach((line, i) => {
    let item: unknown;
    try {
      item = parseJson(line);
    } catch (error) {
      fail(`line ${i + 2} is not valid JSON (${(error as Error).message})`);
    }
    pets.push(decodePet(item, `line ${i + 2}`));
  });
  return assemble(pets, nextId, (i) => `line ${i + 2}`, torn);
}

/** Loads the data file; undefined when it does not exist or is empty. Throws SandboxStartError when unusable. */
export async function loadData(file: string): Promise<DataFile | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new SandboxStartError(`cannot read --data file ${file}: ${(error as Error).message}`, { cause: error });
  }
  // The lines end at the first NUL (zero-filled blocks a machine crash can leave).
  const nul = text.indexOf('\0');
  const reserved = nul !== -1;
  if (reserved) text = text.slice(0, nul);
  if (text.trim().length === 0) return undefined;
  try {
    const data = decodeLog(text) ?? decodeVersion1(parseJson(text));
    if (reserved) data.needsCompaction = true;
    return data;
  } catch (error) {
    const reason = error instanceof CorruptData ? error.message : `not valid JSON (${(error as Error).message})`;
    throw new SandboxStartError(
      `cannot load --data file ${file}: ${reason}. The file was left untouched; fix it, move it away or choose another --data file.`,
      { cause: error },
    );
  }
}
