// The pets in memory, and the --data file's loader (docs/sandbox.md, "Data file"): a header line with the
// next id, then one pet per line; format 1 ({"version":1,"nextId":12,"pets":[...]}) is read too.

import { readFile } from 'node:fs/promises';
import { INT64_MAX, parseJson, stringifyJson, toInt64 } from '../json/int64.js';
import { PET_STATUSES, type Pet, type PetStatus, toPet } from '../pets/pet.js';
import { apiError, SandboxStartError } from './errors.js';

const HEADER_KEY = 'petstore-sandbox-data';

interface DataFile {
  nextId: bigint;
  pets: Pet[];
}

class CorruptData extends Error {}

function fail(reason: string): never {
  throw new CorruptData(reason);
}

/** Checks ids are unique, and the next id: never lower than the highest id + 1. */
function assemble(items: unknown[], nextIdValue: unknown, where: (i: number) => string): DataFile {
  const rule = `an int64 id and categoryId, a string name, and optionally a status of ${PET_STATUSES.join(', ')}`;
  const pets = items.map((item, i) => toPet(item) ?? fail(`${where(i)} must be a pet: ${rule}`));
  const seen = new Set<bigint>();
  let next = 1n;
  pets.forEach((pet, i) => {
    if (seen.has(pet.id)) fail(`${where(i)}.id ${pet.id} is a duplicate`);
    seen.add(pet.id);
    if (pet.id >= next) next = pet.id + 1n;
  });
  if (nextIdValue === undefined) return { nextId: next, pets };
  // INT64_MAX + 1 once the last id is used up.
  const nextId = toInt64(nextIdValue) ?? (nextIdValue === INT64_MAX + 1n ? nextIdValue : undefined);
  if (nextId === undefined || nextId < 1n) fail('"nextId" must be a positive integer');
  return { nextId: nextId > next ? nextId : next, pets };
}

function decodeVersion1(value: unknown): DataFile {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail('the top level must be a JSON object');
  const doc = value as Record<string, unknown>;
  if (doc.version !== 1) fail(`unsupported "version" ${JSON.stringify(doc.version) ?? 'undefined'} (expected 1)`);
  if (!Array.isArray(doc.pets)) fail('"pets" must be an array');
  return assemble(doc.pets, doc.nextId, (i) => `pets[${i}]`);
}

function parseLine(line: string, i: number): unknown {
  try {
    return parseJson(line);
  } catch (error) {
    if (i === 0) return undefined;
    fail(`line ${i + 1} is not valid JSON (${(error as Error).message})`);
  }
}

/** The log format, or undefined when the first line is not its header. */
function decodeLog(text: string): DataFile | undefined {
  const lines = text.split('\n');
  const header = parseLine(lines[0] ?? '', 0) as Record<string, unknown> | undefined;
  if (typeof header !== 'object' || header === null || !(HEADER_KEY in header)) return undefined;
  if (header[HEADER_KEY] !== 2) fail(`unsupported "${HEADER_KEY}" ${JSON.stringify(header[HEADER_KEY]) ?? 'undefined'} (expected 2)`);
  // The last piece follows the last newline: empty, or a line the sandbox died writing, never acknowledged.
  const items = lines.slice(1, -1).map((line, i) => parseLine(line, i + 1));
  return assemble(items, header.nextId, (i) => `line ${i + 2}`);
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
  text = text.split('\0', 1)[0] ?? '';
  if (text.trim().length === 0) return undefined;
  try {
    return decodeLog(text) ?? decodeVersion1(parseJson(text));
  } catch (error) {
    const reason = error instanceof CorruptData ? error.message : `not valid JSON (${(error as Error).message})`;
    throw new SandboxStartError(
      `cannot load --data file ${file}: ${reason}. The file was left untouched; fix it, move it away or choose another --data file.`,
      { cause: error },
    );
  }
}

/** The pets in memory, in ascending id order (loaded pets are sorted, new ids are above them). */
export class PetStore {
  readonly #pets = new Map<bigint, Pet>();
  #next: bigint;

  /** `next` is above every id of `initial` (loadData's nextId, or --first-id when higher). */
  constructor(next: bigint, initial: readonly Pet[]) {
    const sorted = [...initial].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    for (const pet of sorted) this.#pets.set(pet.id, { ...pet });
    this.#next = next;
  }

  /** The next id (synchronously: concurrent creates get consecutive ids), used up even when its pet is not stored. */
  takeId(): bigint {
    if (this.#next > INT64_MAX) throw apiError('ids_exhausted', `no ids left: the next id would exceed ${INT64_MAX} (int64)`);
    return this.#next++;
  }

  add(pet: Pet): void {
    this.#pets.set(pet.id, pet);
  }

  get(id: bigint): Pet | undefined {
    return this.#pets.get(id);
  }

  /** The first `limit` pets by ascending id, optionally of one status. */
  list(limit: number, status?: PetStatus): Pet[] {
    return [...this.#pets.values()].filter((pet) => status === undefined || pet.status === status).slice(0, limit);
  }

  snapshot(): string {
    const lines = [`{"${HEADER_KEY}":2,"nextId":${this.#next}}`];
    for (const pet of this.#pets.values()) lines.push(stringifyJson(pet));
    return `${lines.join('\n')}\n`;
  }
}
