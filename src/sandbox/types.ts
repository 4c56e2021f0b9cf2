// Shared types of the sandbox server: the interface's resources (the CLI's own, src/pets/pet.ts) and the plans.

import type { PLANS } from '../flag-values.js';
import type { NewPet, PetStatus } from '../pets/pet.js';
import { petTail } from '../pets/pet-json.js';

export { isPetStatus, PET_STATUSES, toPet, type NewPet, type Pet, type PetStatus } from '../pets/pet.js';

export { STATUS_TAILS } from '../pets/pet-json.js';
export { PLANS } from '../flag-values.js';
export type Plan = (typeof PLANS)[number];

/** The plan table of the interface document (requests per minute and per day). */
export const PLAN_LIMITS: Readonly<Record<Plan, { perMinute: number; perDay: number }>> = {
  free: { perMinute: 60, perDay: 1_000 },
  pro: { perMinute: 300, perDay: 10_000 },
  business: { perMinute: 1_000, perDay: 100_000 },
};

/**
 * A NewPet as the JSON text of a Pet after its id: `"name":…,"categoryId":…[,"status":…]}`, fields in
 * document order, int64 as exact digits, and its status (for listing by status). Built from the request
 * body's own text where it can be (validate.ts, readNewPetText), so a create converts no value twice.
 */
export interface PetText {
  readonly tail: string;
  readonly status: PetStatus | undefined;
}

/** The PetText of a NewPet. */
export function petText(pet: NewPet): PetText {
  return { tail: petTail(pet), status: pet.status };
}

/**
 * Exact JSON text of a pet from its id's digits and its PetText. Built with join(), which makes one flat
 * string: concatenation makes a tree of string pieces (one of them the request body a tail was cut from),
 * all of which a stored pet would keep alive (and the garbage collector copy) for as long as the sandbox runs.
 */
export function petJsonText(idText: string, tail: string): string {
  return ['{"id":', idText, ',', tail].join('');
}

/** Exact JSON text of a pet. */
export function petJson(id: bigint, pet: NewPet): string {
  return petJsonText(id.toString(), petText(pet).tail);
}
