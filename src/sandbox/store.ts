// The in-memory pet store. Ids are handed out synchronously, so concurrent
// requests on the single event loop always get unique, consecutive ids.

import { INT64_MAX, parseJson } from '../json/int64.js';
import { apiError } from './errors.js';
import { HEADER_KEY } from './persist.js';
import { petJson, toPet, type NewPet, type Pet, type PetStatus } from './types.js';

/**
 * A stored pet: what finding and listing need, and its exact JSON text (pets never change once created).
 * Three objects a pet (this, the id, the text): each create's survive the garbage collector's copying
 * for as long as the sandbox runs, so the fewer the cheaper.
 */
export interface Stored {
  readonly id: bigint;
  readonly status: PetStatus | undefined;
  readonly json: string;
}

export class PetStore {
  // Ascending id, append-only: ids only grow and loaded pets are sorted. An array rather than a
  // Map<bigint, ...>: a create is a push (a Map's bigint-keyed set with rehashing was the largest
  // single cost of a POST in the profile) and an id is found by bisection.
  private readonly pets: Stored[] = [];
  private next: bigint;

  constructor(firstId: bigint, initial: readonly Pet[] = []) {
    const sorted = [...initial].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    for (const pet of sorted) {
      // A repeated id keeps its last pet, as a Map did.
      if (this.pets.at(-1)?.id === pet.id) this.pets.pop();
      this.pets.push({ id: pet.id, status: pet.status, json: petJson(pet.id, pet) });
    }
    const last = sorted.at(-1);
    this.next = last !== undefined && last.id >= firstId ? last.id + 1n : firstId;
  }

  get size(): number {
    return this.pets.length;
  }

  /** The id the next created pet gets. */
  get nextId(): bigint {
    return this.next;
  }

  /** Stores a new pet with the next id. Throws ids_exhausted past int64. */
  create(input: NewPet): Stored {
    const stored = this.reserve(input);
    this.insert(stored);
    return stored;
  }

  /**
   * Gives a new pet the next id without storing it yet (it is stored once its line is on disk; an id
   * whose write failed is never handed out again). Throws ids_exhausted past int64.
   */
  reserve(input: NewPet): Stored {
    const id = this.next;
    if (id > INT64_MAX) throw apiError('ids_exhausted', `no ids left: the next id would exceed ${INT64_MAX} (int64)`);
    this.next = id + 1n;
    return { id, status: input.status, json: petJson(id, input) };
  }

  /** Stores a reserved pet, in id order (reserved pets normally arrive in it: the data file's appends keep it). */
  insert(stored: Stored): void {
    const pets = this.pets;
    const id = stored.id;
    let at = pets.length;
    while (at > 0 && (pets[at - 1] as Stored).id > id) at--;
    if (at === pets.length) pets.push(stored);
    else pets.splice(at, 0, stored);
  }

  /** The exact JSON text of one pet, or undefined. */
  getJson(id: bigint): string | undefined {
    const pets = this.pets;
    let lo = 0;
    let hi = pets.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const s = pets[mid] as Stored;
      if (s.id === id) return s.json;
      if (s.id < id) lo = mid + 1;
      else hi = mid - 1;
    }
    return undefined;
  }

  /** JSON array text of the first `limit` pets by ascending id, optionally of one status. */
  listJson(limit: number, status?: PetStatus): string {
    const parts: string[] = [];
    for (const s of this.pets) {
      if (parts.length >= limit) break;
      if (status === undefined || s.status === status) parts.push(s.json);
    }
    return `[${parts.join(',')}]`;
  }

  /** Copies of all pets, ascending id (read back from their JSON: exact, int64 included). */
  all(): Pet[] {
    return this.pets.map((s) => toPet(parseJson(s.json)) as Pet);
  }

  /** The data file's whole text (see persist.ts for the format). */
  snapshot(): string {
    let text = `{"${HEADER_KEY}":2,"nextId":${this.next}}\n`;
    for (const s of this.pets) text += `${s.json}\n`;
    return text;
  }
}
