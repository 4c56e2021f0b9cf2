// The in-memory pet store. Ids are handed out synchronously, so concurrent
// requests on the single event loop always get unique, consecutive ids.

import { INT64_MAX, parseJson } from '../json/int64.js';
import { apiError } from './errors.js';
import { HEADER_KEY } from './persist.js';
import { petJson, petJsonText, toPet, type NewPet, type Pet, type PetStatus, type PetText } from './types.js';

/**
 * An id as the store keeps it: a number while it is a safe integer (every id a sandbox usually hands out:
 * no bigint to make, keep or print per create), a bigint beyond.
 */
type Id = number | bigint;

const toId = (id: bigint): Id => (id <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(id) : id);

/** A pet given its id and text, not stored yet (reserve(), then insert() once it may be listed). */
export interface Reserved {
  readonly id: Id;
  /** The id's decimal digits. */
  readonly idText: string;
  readonly status: PetStatus | undefined;
  /** The pet's exact JSON text. */
  readonly json: string;
}

export class PetStore {
  // Ascending id, append-only: ids only grow and loaded pets are sorted. Parallel arrays rather than an
  // object per pet: a stored pet is its JSON text alone (an id of up to 2^30 is a small integer inside
  // the array, a status one of three constants), so the garbage collector has one object a pet to keep
  // and copy for as long as the sandbox runs, not three. An id is found by bisection.
  private readonly ids: Id[] = [];
  private readonly statuses: Array<PetStatus | undefined> = [];
  private readonly jsons: string[] = [];
  private next: Id;

  constructor(firstId: bigint, initial: readonly Pet[] = []) {
    const sorted = [...initial].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    for (const pet of sorted) {
      // A repeated id keeps its last pet, as a Map did.
      if (this.ids.length > 0 && this.ids.at(-1) === toId(pet.id)) this.#pop();
      this.#push(toId(pet.id), pet.status, petJson(pet.id, pet));
    }
    const last = sorted.at(-1);
    this.next = toId(last !== undefined && last.id >= firstId ? last.id + 1n : firstId);
  }

  #push(id: Id, status: PetStatus | undefined, json: string): void {
    this.ids.push(id);
    this.statuses.push(status);
    this.jsons.push(json);
  }

  #pop(): void {
    this.ids.pop();
    this.statuses.pop();
    this.jsons.pop();
  }

  get size(): number {
    return this.ids.length;
  }

  /** The id the next created pet gets. */
  get nextId(): bigint {
    return BigInt(this.next);
  }

  /** Stores a new pet with the next id. Throws ids_exhausted past int64. */
  create(input: NewPet | PetText): Reserved {
    const reserved = this.reserve(input);
    this.insert(reserved);
    return reserved;
  }

  /**
   * Gives a new pet the next id without storing it yet (it is stored once its line is on disk; an id
   * whose write failed is never handed out again). Throws ids_exhausted past int64.
   */
  reserve(input: NewPet | PetText): Reserved {
    const id = this.next;
    if (typeof id === 'number') this.next = id < Number.MAX_SAFE_INTEGER ? id + 1 : BigInt(id) + 1n;
    else if (id > INT64_MAX) throw apiError('ids_exhausted', `no ids left: the next id would exceed ${INT64_MAX} (int64)`);
    else this.next = id + 1n;
    const idText = id.toString();
    if ('tail' in input) return { id, idText, status: input.status, json: petJsonText(idText, input.tail) };
    return { id, idText, status: input.status, json: petJson(BigInt(id), input) };
  }

  /** Stores a reserved pet, in id order (reserved pets normally arrive in it: the data file's appends keep it). */
  insert(pet: Reserved): void {
    const ids = this.ids;
    const id = pet.id;
    let at = ids.length;
    while (at > 0 && (ids[at - 1] as Id) > id) at--;
    if (at === ids.length) this.#push(id, pet.status, pet.json);
    else {
      ids.splice(at, 0, id);
      this.statuses.splice(at, 0, pet.status);
      this.jsons.splice(at, 0, pet.json);
    }
  }

  /** The exact JSON text of one pet, or undefined. */
  getJson(id: bigint): string | undefined {
    const ids = this.ids;
    let lo = 0;
    let hi = ids.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      // Number and bigint compare by value with < and >.
      const s = ids[mid] as Id;
      if (s < id) lo = mid + 1;
      else if (s > id) hi = mid - 1;
      else return this.jsons[mid];
    }
    return undefined;
  }

  /** JSON array text of the first `limit` pets by ascending id, optionally of one status. */
  listJson(limit: number, status?: PetStatus): string {
    const parts: string[] = [];
    const { statuses, jsons } = this;
    for (let i = 0; i < jsons.length && parts.length < limit; i++) {
      if (status === undefined || statuses[i] === status) parts.push(jsons[i] as string);
    }
    return `[${parts.join(',')}]`;
  }

  /** Copies of all pets, ascending id (read back from their JSON: exact, int64 included). */
  all(): Pet[] {
    return this.jsons.map((json) => toPet(parseJson(json)) as Pet);
  }

  /** The data file's whole text (see persist.ts for the format). */
  snapshot(): string {
    let text = `{"${HEADER_KEY}":2,"nextId":${this.next}}\n`;
    for (const json of this.jsons) text += `${json}\n`;
    return text;
  }
}
