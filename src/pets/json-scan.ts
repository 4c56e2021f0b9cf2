// The steps of the sandbox's reader of a new pet's JSON text without JSON.parse (sandbox/validate.ts,
// its only user now: this file goes with it).
import { PET_STATUSES, type PetStatus } from './pet.js';

// Character codes of the JSON the readers take.
const TAB = 0x09;
const LINE_FEED = 0x0a;
const RETURN = 0x0d;
export const SPACE = 0x20;
export const QUOTE = 0x22;
export const COMMA = 0x2c;
export const MINUS = 0x2d;
export const ZERO = 0x30;
export const NINE = 0x39;
export const COLON = 0x3a;
const BACKSLASH = 0x5c;
export const OPEN_BRACE = 0x7b;
export const CLOSE_BRACE = 0x7d;
export const DELETE = 0x7f;

/** Past JSON whitespace (space, tab, CR, LF) from `i`, at most to `end`. */
export function skipSpace(s: string, i: number, end: number): number {
  for (; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c !== SPACE && c !== LINE_FEED && c !== RETURN && c !== TAB) break;
  }
  return i;
}

/**
 * Where the JSON string whose opening quote is at `i` closes (its closing quote's index), or -1 when
 * it has an escape or a control character, or does not close before `end`.
 */
export function plainStringEnd(s: string, i: number, end: number): number {
  if (i >= end || s.charCodeAt(i) !== QUOTE) return -1;
  for (let j = i + 1; j < end; j++) {
    const c = s.charCodeAt(j);
    if (c === QUOTE) return j;
    if (c === BACKSLASH || c < SPACE) return -1;
  }
  return -1;
}

/** The status whose text is s[start, end) (a string's contents, without its quotes); undefined for none. */
export function statusAt(s: string, start: number, end: number): PetStatus | undefined {
  for (let k = 0; k < PET_STATUSES.length; k++) {
    const status = PET_STATUSES[k] as PetStatus;
    if (status.length === end - start && s.startsWith(status, start)) return status;
  }
  return undefined;
}
