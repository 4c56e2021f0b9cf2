// Shared types of the sandbox server: the interface's resources (the CLI's own, src/pets/pet.ts) and the plans.

import type { PLANS } from '../flag-values.js';
import { PET_STATUSES, type NewPet, type PetStatus } from '../pets/pet.js';

export { isPetStatus, PET_STATUSES, toPet, type NewPet, type Pet, type PetStatus } from '../pets/pet.js';

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
  const end = pet.status === undefined ? '}' : STATUS_TAILS[pet.status];
  return { tail: ['"name":', jsonString(pet.name), ',"categoryId":', pet.categoryId.toString(), end].join(''), status: pet.status };
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

/** JSON.stringify(text), without its cost (a third of a create's JSON) for the usual name that needs no escape. */
function jsonString(text: string): string {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // Quote, backslash, controls and surrogates: JSON.stringify knows how they are written.
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) return JSON.stringify(text);
  }
  return `"${text}"`;
}

/** The end of a pet's JSON text after its categoryId, by status. */
export const STATUS_TAILS = Object.fromEntries(PET_STATUSES.map((s) => [s, `,"status":"${s}"}`])) as Record<PetStatus, string>;
