// The in-memory pet store. Ids are handed out synchronously: concurrent requests get unique, consecutive ids.

import { INT64_MAX, stringifyJson } from '../json/int64.js';
import type { Pet, PetStatus } from '../pets/pet.js';
import { apiError } from './errors.js';
import { HEADER_KEY } from './persist.js';

export class PetStore {
  /** Ascending id (loaded pets are sorted, new ids are above them); fields in the document's order. */
  readonly #pets = new Map<bigint, Pet>();
  #next: bigint;

  constructor(firstId: bigint, initial: readonly Pet[] = []) {
    const sorted = [...initial].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    for (const pet of sorted) this.#pets.set(pet.id, { ...pet });
    const last = sorted.at(-1);
    this.#next = last !== undefined && last.id >= firstId ? last.id + 1n : firstId;
  }

  /** The next id, used up even when its pet is not stored (a failed write): an id is never handed out twice. */
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
    const out: Pet[] = [];
    for (const pet of this.#pets.values()) {
      if (out.length === limit) break;
      if (status === undefined || pet.status === status) out.push(pet);
    }
    return out;
  }

  /** Copies of all pets, ascending id. */
  all(): Pet[] {
    return [...this.#pets.values()].map((pet) => ({ ...pet }));
  }

  /** The data file's whole text (see persist.ts for the format). */
  snapshot(): string {
    const lines = [`{"${HEADER_KEY}":2,"nextId":${this.#next}}`];
    for (const pet of this.#pets.values()) lines.push(stringifyJson(pet));
    return `${lines.join('\n')}\n`;
  }
}
