// A Pet in the one form the pet store writes it (issue #18): `{"id":…,"name":"…","categoryId":…}` with
// an optional `,"status":"…"`, no whitespace, the name without escapes or control characters, the
// integers as plain digits. In that form the text is what stringifyJson writes for the Pet parseJson and
// toPet read from it, so a seeding run reads each created pet and writes its result line without
// parseJson, toPet's copy or stringifyJson (a tenth of a record's CPU). Anything else, valid or not, is
// left to those: every answer is still read as it always was. The sandbox writes its pets with the same
// writer (petTail), so what it sends is the form read here.

import { PET_STATUSES } from '../contract/petstore.js';
import { INT64_MAX, INT64_MIN } from '../json/int64.js';
import type { NewPet, Pet, PetStatus } from './pet.js';

/** A JSON string's character that needs no escape: JSON.stringify writes it as it is. */
export const PLAIN_JSON_CHAR = '[^"\\\\\\u0000-\\u001f]';

/** An int64 literal as JSON.stringify writes an integer: no leading zero, no -0, at most 19 digits. */
const INT = '(0|-?[1-9][0-9]{0,18})';

const EXACT = new RegExp(`^\\{"id":${INT},"name":"(${PLAIN_JSON_CHAR}*)","categoryId":${INT}(?:,"status":"(${PET_STATUSES.join('|')})")?\\}$`);

/** The Pet of a body in the store's own form (above); undefined for any other text. */
export function readPet(text: string): Pet | undefined {
  const m = EXACT.exec(text);
  if (m === null) return undefined;
  const id = int64FromDigits(m[1] as string);
  const categoryId = int64FromDigits(m[3] as string);
  if (id === undefined || categoryId === undefined) return undefined;
  const name = m[2] as string;
  const status = m[4] as PetStatus | undefined;
  return status === undefined ? { id, name, categoryId } : { id, name, categoryId, status };
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

/**
 * A NewPet's JSON text as it follows the id in a Pet's: `"name":…,"categoryId":…[,"status":…]}`, exact
 * int64. Built with join(), which makes one flat string (the sandbox keeps each pet's text for as long as
 * it runs; a tree of pieces would keep them all alive).
 */
export function petTail(pet: NewPet): string {
  return ['"name":', jsonString(pet.name), ',"categoryId":', pet.categoryId.toString(), pet.status === undefined ? '}' : STATUS_TAILS[pet.status]].join('');
}

/**
 * stringifyJson's text of a Pet of exactly the store's fields, in its order; undefined for any other
 * (more fields, another order): stringifyJson writes it.
 */
export function petJson(pet: Pet): string | undefined {
  let keys = 0;
  for (const key in pet) {
    if (key !== KEYS[keys++]) return undefined;
  }
  if (keys !== (pet.status === undefined ? 3 : 4) || typeof pet.id !== 'bigint' || typeof pet.categoryId !== 'bigint') return undefined;
  return ['{"id":', pet.id.toString(), ',', petTail(pet)].join('');
}

const KEYS = ['id', 'name', 'categoryId', 'status'];

/** The value of an integer literal already checked to be one: undefined past int64. */
function int64FromDigits(digits: string): bigint | undefined {
  const n = BigInt(digits);
  return n >= INT64_MIN && n <= INT64_MAX ? n : undefined;
}
