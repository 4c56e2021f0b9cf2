// A Pet in the one form the pet store writes it (issue #18): `{"id":…,"name":"…","categoryId":…}` with
// an optional `,"status":"…"`, no whitespace, the name without escapes or control characters, the
// integers as plain digits. In that form the text is what stringifyJson writes for the Pet parseJson and
// toPet read from it, so a seeding run reads each created pet and writes its result line without
// parseJson, toPet's copy or stringifyJson (a tenth of a record's CPU). Anything else, valid or not, is
// left to those: every answer is still read as it always was.

import { PET_STATUSES } from '../contract/petstore.js';
import { INT64_MAX, INT64_MIN } from '../json/int64.js';
import type { Pet, PetStatus } from './pet.js';

/** A JSON string's character that needs no escape: JSON.stringify writes it as it is. */
export const PLAIN_JSON_CHAR = '[^"\\\\\\u0000-\\u001f]';

/** An int64 literal as JSON.stringify writes an integer: no leading zero, no -0, at most 19 digits. */
const INT = '(0|-?[1-9][0-9]{0,18})';

const EXACT = new RegExp(`^\\{"id":${INT},"name":"(${PLAIN_JSON_CHAR}*)","categoryId":${INT}(?:,"status":"(${PET_STATUSES.join('|')})")?\\}$`);

/** An INT literal's value; up to 15 characters a double holds it exactly, and BigInt of a number costs less than of text. */
function int64(digits: string): bigint | undefined {
  if (digits.length <= 15) return BigInt(Number(digits));
  const n = BigInt(digits);
  return n >= INT64_MIN && n <= INT64_MAX ? n : undefined;
}

/** The Pet of a body in the store's own form (above); undefined for any other text. */
export function readPet(text: string): Pet | undefined {
  const m = EXACT.exec(text);
  if (m === null) return undefined;
  const id = int64(m[1] as string);
  const categoryId = int64(m[3] as string);
  if (id === undefined || categoryId === undefined) return undefined;
  const name = m[2] as string;
  const status = m[4] as PetStatus | undefined;
  return status === undefined ? { id, name, categoryId } : { id, name, categoryId, status };
}

/** A name JSON.stringify writes as it is: no escape, and no surrogate (a lone one it escapes; emoji are left to it). */
const PLAIN_NAME = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;

/**
 * stringifyJson's text of a Pet of exactly the store's fields, in its order, written by hand; undefined
 * for any other (more fields, another order, a name that needs escapes): stringifyJson writes it.
 */
export function petJson(pet: Pet): string | undefined {
  const { id, name, categoryId, status } = pet;
  let keys = 0;
  for (const key in pet) {
    if (key !== KEYS[keys++]) return undefined;
  }
  if (keys !== (status === undefined ? 3 : 4) || typeof id !== 'bigint' || typeof categoryId !== 'bigint' || !PLAIN_NAME.test(name)) return undefined;
  const head = `{"id":${id},"name":"${name}","categoryId":${categoryId}`;
  return status === undefined ? `${head}}` : `${head},"status":"${status}"}`;
}

const KEYS = ['id', 'name', 'categoryId', 'status'];
