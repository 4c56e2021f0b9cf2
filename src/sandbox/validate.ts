// Validation of requests: NewPet bodies, query parameters and the petId path
// segment. Every failure is a 400 ApiError whose message names the field.

import { isUtf8 } from 'node:buffer';
import { INT64_MAX, INT64_MIN, parseJson, stringifyJson, toInt64 } from '../json/int64.js';
import { LIST_LIMIT, NEW_PET_FIELDS, NEW_PET_REQUIRED } from '../contract/petstore.js';
import { apiError } from './errors.js';
import { PLAIN_JSON_CHAR } from '../pets/pet-json.js';
import { CLOSE_BRACE, COLON, COMMA, DELETE, MINUS, NINE, OPEN_BRACE, QUOTE, SPACE, ZERO, plainStringEnd, skipSpace, statusAt } from '../pets/json-scan.js';
import { PET_STATUSES, STATUS_TAILS, isPetStatus, type NewPet, type PetStatus, type PetText } from './types.js';

/** Longest accepted pet name, in Unicode code points. */
const NAME_MAX_LENGTH = 200;
// The page size and NewPet's fields are the interface's (openapi/petstore.yaml, through its generated module).
const LIMIT_MIN = LIST_LIMIT.min;
const LIMIT_MAX = LIST_LIMIT.max;
const LIMIT_DEFAULT = LIST_LIMIT.default;

const NEW_PET_FIELD_SET: ReadonlySet<string> = new Set(NEW_PET_FIELDS);
const FIELD_LIST = `${NEW_PET_FIELDS.slice(0, -1).join(', ')} and ${NEW_PET_FIELDS.at(-1)}`;
const STATUS_LIST = PET_STATUSES.join(', ');

/** A short type name of a JSON value, for messages. */
function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'bigint') return 'integer';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function preview(value: unknown): string {
  // stringifyJson: a bigint nested in an array or object would make JSON.stringify throw (a 500).
  const text = typeof value === 'bigint' ? value.toString() : stringifyJson(value);
  if (text === undefined) return String(value);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

/** The body text of a POST, or an error answer: invalid UTF-8 is refused; a leading BOM is dropped (as TextDecoder does). */
export function bodyText(bytes: Buffer): string {
  const text = bytes.toString('utf8');
  // The decoder writes U+FFFD for every invalid sequence: a text without one came from valid UTF-8, and
  // only one with it (rare: a body may say U+FFFD itself) needs the bytes checked.
  if (text.includes('\uFFFD') && !isUtf8(bytes)) throw apiError('invalid_json', 'request body is not valid UTF-8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Parses a request body as JSON (exact int64). Throws invalid_json. */
export function parseBody(text: string): unknown {
  if (text.trim().length === 0) {
    throw apiError('invalid_json', 'request body is empty: expected a JSON object (NewPet) with name and categoryId');
  }
  try {
    return parseJson(text);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw apiError('invalid_json', `request body is not valid JSON: ${detail}`);
  }
}

/**
 * The PetText of a body in the form clients send it (one object of name, categoryId and maybe status, each
 * once, the strings without escapes, the integer without fraction or exponent, any JSON whitespace), read
 * in one pass without building a generic JSON value, nor any value of its own: the body's text of each
 * field is already its JSON text in the Pet. Undefined for anything else, valid or not: the general path
 * (parseBody, validateNewPet, petText) reads it, so every answer and error is the one it gives.
 */
export function readNewPetText(text: string): PetText | undefined {
  return asIs(text) ?? readAnyOrder(text);
}

/**
 * A body written as the Pet's text after its id (JSON.stringify of a NewPet, what clients send): name
 * without escapes or control characters in 1 to 200 UTF-16 units, categoryId of up to 15 digits (always
 * within int64; no leading zero, no -0), the status if any one of the values. One regular expression (a
 * third of the time of reading it piece by piece).
 */
const AS_IS = new RegExp(
  `^\\{"name":"${PLAIN_JSON_CHAR}{1,${NAME_MAX_LENGTH}}","categoryId":(?:0|-?[1-9][0-9]{0,14})(?:,"status":"(?:${PET_STATUSES.join('|')})")?\\}$`,
);
const NAME_START = '{"name":"'.length;

/** The PetText of a body written as the Pet's text after its id (AS_IS): the body is the tail. Undefined otherwise. */
function asIs(text: string): PetText | undefined {
  if (!AS_IS.test(text)) return undefined;
  // A name that starts with a visible ASCII character is not blank.
  const c = text.charCodeAt(NAME_START);
  if (!(c > SPACE && c < DELETE) && text.slice(NAME_START, text.indexOf('"', NAME_START)).trim().length === 0) return undefined;
  let status: PetStatus | undefined;
  if (text.charCodeAt(text.length - 2) === QUOTE) {
    for (const s of PET_STATUSES) {
      if (text.endsWith(STATUS_TAILS[s])) {
        status = s;
        break;
      }
    }
  }
  return { tail: text.slice(1), status };
}

/**
 * Whether the name whose text with its quotes is text[start, end) is one the general path accepts as it
 * is: 1 to 200 UTF-16 units (longer ones it counts in code points), not blank. A name that starts with a
 * visible ASCII character is not blank.
 */
function plainName(text: string, start: number, end: number): boolean {
  const length = end - start - 2;
  if (length === 0 || length > NAME_MAX_LENGTH) return false;
  const c = text.charCodeAt(start + 1);
  return (c > SPACE && c < DELETE) || text.slice(start + 1, end - 1).trim().length > 0;
}

/** readNewPetText for any order of the fields, any JSON whitespace, and categoryIds of 16 to 19 digits. */
function readAnyOrder(text: string): PetText | undefined {
  let i = skipSpace(text, 0, text.length);
  if (text.charCodeAt(i) !== OPEN_BRACE) return undefined;
  let nameStart = -1;
  let nameEnd = -1;
  let categoryStart = -1;
  let categoryEnd = -1;
  let status: PetStatus | undefined;
  let statusSeen = false;
  for (;;) {
    i = skipSpace(text, i + 1, text.length);
    const keyEnd = plainStringEnd(text, i, text.length);
    if (keyEnd === -1) return undefined;
    // The key, found without a string of its own: 0 name, 1 categoryId, 2 status, -1 another.
    const length = keyEnd - i - 1;
    const key =
      length === 4 && text.startsWith('name', i + 1)
        ? 0
        : length === 10 && text.startsWith('categoryId', i + 1)
          ? 1
          : length === 6 && text.startsWith('status', i + 1)
            ? 2
            : -1;
    i = skipSpace(text, keyEnd + 1, text.length);
    if (text.charCodeAt(i) !== COLON) return undefined;
    i = skipSpace(text, i + 1, text.length);
    if (key === 1) {
      if (categoryStart !== -1) return undefined;
      categoryStart = i;
      if (text.charCodeAt(i) === MINUS) i++;
      const first = i;
      for (let c = text.charCodeAt(i); c >= ZERO && c <= NINE; c = text.charCodeAt(++i));
      const digits = i - first;
      if (digits === 0 || digits > 19 || (digits > 1 && text.charCodeAt(first) === ZERO)) return undefined;
      // Up to 15 digits are always within int64.
      if (digits > 15) {
        const value = BigInt(text.slice(categoryStart, i));
        if (value < INT64_MIN || value > INT64_MAX) return undefined;
      }
      categoryEnd = i;
      // -0 is the integer 0, written so.
      if (first !== categoryStart && digits === 1 && text.charCodeAt(first) === ZERO) categoryStart = first;
    } else if (key === 0 || key === 2) {
      const end = plainStringEnd(text, i, text.length);
      if (end === -1) return undefined;
      if (key === 0) {
        if (nameStart !== -1) return undefined;
        nameStart = i;
        nameEnd = end + 1;
      } else {
        if (statusSeen) return undefined;
        statusSeen = true;
        status = statusAt(text, i + 1, end);
        if (status === undefined) return undefined;
      }
      i = end + 1;
    } else return undefined;
    i = skipSpace(text, i, text.length);
    const c = text.charCodeAt(i);
    if (c === CLOSE_BRACE) break;
    if (c !== COMMA) return undefined;
  }
  if (skipSpace(text, i + 1, text.length) !== text.length) return undefined;
  if (nameStart === -1 || categoryStart === -1) return undefined;
  // Anything the general path would refuse (or count code points for) is left to it.
  if (!plainName(text, nameStart, nameEnd)) return undefined;
  // The name's text with its quotes is its JSON: it has no escape, no control character, and (the body
  // being UTF-8) no lone surrogate, the only characters JSON.stringify writes otherwise.
  const tail = [
    '"name":',
    text.slice(nameStart, nameEnd),
    ',"categoryId":',
    text.slice(categoryStart, categoryEnd),
    status === undefined ? '}' : STATUS_TAILS[status],
  ].join('');
  return { tail, status };
}

/** Validates a parsed NewPet. Unknown and read-only fields are rejected. */
export function validateNewPet(value: unknown): NewPet {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw apiError('invalid_body', `request body must be a JSON object (NewPet), got ${jsonType(value)}`);
  }
  const body = value as Record<string, unknown>;
  for (const key of Object.keys(body)) {
    if (key === 'id') throw apiError('read_only_field', 'id is read-only: the service assigns it on creation; remove it from the body');
    if (!NEW_PET_FIELD_SET.has(key)) {
      throw apiError('unknown_field', `unknown field ${JSON.stringify(key)}: a NewPet has only ${FIELD_LIST}`);
    }
  }
  for (const field of NEW_PET_REQUIRED) if (!Object.hasOwn(body, field)) throw apiError('missing_field', `${field} is required`);

  const name = body.name;
  if (typeof name !== 'string') throw apiError('invalid_field', `name must be a string, got ${jsonType(name)}`);
  if (name.trim().length === 0) throw apiError('invalid_field', 'name must not be empty or blank');
  // Code points: never more than UTF-16 units, so only a long name needs counting.
  let length = 0;
  if (name.length > NAME_MAX_LENGTH) for (const _ of name) length++;
  if (length > NAME_MAX_LENGTH) {
    throw apiError('invalid_field', `name must be at most ${NAME_MAX_LENGTH} characters, got ${length}`);
  }

  const raw = body.categoryId;
  const categoryId = toInt64(raw);
  if (categoryId === undefined) {
    if (typeof raw === 'bigint' || (typeof raw === 'number' && Number.isInteger(raw))) {
      throw apiError('invalid_field', `categoryId must be an integer from ${INT64_MIN} to ${INT64_MAX} (int64), got ${preview(raw)}`);
    }
    if (typeof raw === 'number') throw apiError('invalid_field', `categoryId must be an integer (int64), got ${preview(raw)}`);
    throw apiError('invalid_field', `categoryId must be an integer (int64), got ${jsonType(raw)} ${preview(raw)}`);
  }

  const pet: NewPet = { name, categoryId };
  if (Object.hasOwn(body, 'status')) {
    const status = body.status;
    if (!isPetStatus(status)) {
      const got = typeof status === 'string' ? JSON.stringify(status) : jsonType(status);
      throw apiError('invalid_field', `status must be one of ${STATUS_LIST}, got ${got}`);
    }
    pet.status = canonicalStatus(status);
  }
  return pet;
}

/** The status as the one string constant of its value: a stored pet keeps no string of its own for it. */
function canonicalStatus(status: PetStatus): PetStatus {
  return PET_STATUSES[PET_STATUSES.indexOf(status)] as PetStatus;
}

export interface ListQuery {
  limit: number;
  status?: PetStatus;
}

/** Reads the query string of an operation, allowing only the given parameters, each at most once. */
function queryParams(search: string, allowed: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  if (search.length === 0) return out;
  let params: URLSearchParams;
  try {
    params = new URLSearchParams(search);
  } catch {
    throw apiError('invalid_parameter', 'the query string is malformed');
  }
  for (const [name, value] of params) {
    if (!allowed.includes(name)) {
      const accepted = allowed.length === 0 ? 'this operation takes no query parameters' : `accepted: ${allowed.join(', ')}`;
      throw apiError('unknown_parameter', `unknown query parameter ${JSON.stringify(name)} (${accepted})`);
    }
    if (out.has(name)) throw apiError('invalid_parameter', `${name} must be given at most once`);
    out.set(name, value);
  }
  return out;
}

/** The query of GET /pets: limit 1..100 (default 20) and an optional status. */
export function parseListQuery(search: string): ListQuery {
  const params = queryParams(search, ['limit', 'status']);
  const query: ListQuery = { limit: LIMIT_DEFAULT };
  const limit = params.get('limit');
  if (limit !== undefined) {
    const n = /^\d{1,6}$/.test(limit) ? Number(limit) : Number.NaN;
    if (!(n >= LIMIT_MIN && n <= LIMIT_MAX)) {
      throw apiError('invalid_parameter', `limit must be an integer from ${LIMIT_MIN} to ${LIMIT_MAX}, got ${preview(limit)}`);
    }
    query.limit = n;
  }
  const status = params.get('status');
  if (status !== undefined) {
    if (!isPetStatus(status)) throw apiError('invalid_parameter', `status must be one of ${STATUS_LIST}, got ${preview(status)}`);
    query.status = status;
  }
  return query;
}

/** Rejects any query parameter (operations without parameters). */
export function expectNoQuery(search: string): void {
  if (search.length > 0) queryParams(search, []);
}

/** The petId path segment: an int64 in decimal digits (optional minus sign). */
export function parsePetId(segment: string): bigint {
  let text: string;
  try {
    text = decodeURIComponent(segment);
  } catch {
    text = segment;
  }
  if (/^-?\d{1,25}$/.test(text)) {
    const id = BigInt(text);
    if (id >= INT64_MIN && id <= INT64_MAX) return id;
  }
  throw apiError('invalid_parameter', `petId must be an integer from ${INT64_MIN} to ${INT64_MAX} (int64), got ${preview(text)}`);
}
