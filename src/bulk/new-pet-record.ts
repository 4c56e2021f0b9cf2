import { NEW_PET_FIELDS as CONTRACT_FIELDS, NEW_PET_REQUIRED } from '../contract/petstore.js';
import { INT64_MAX, INT64_MIN, parseInt64, toInt64 } from '../json/int64.js';
import { isPetStatus, PET_STATUSES, type NewPet, type PetStatus } from '../pets/pet.js';
import { CLOSE_BRACE, COLON, COMMA, DOT, MINUS, NINE, OPEN_BRACE, ZERO, plainStringEnd, skipSpace, statusAt } from '../pets/json-scan.js';

/** The fields a record may have (a CSV header may name), and those it must have: NewPet's (openapi/petstore.yaml). */
export const NEW_PET_FIELDS: readonly string[] = CONTRACT_FIELDS;
export const REQUIRED_FIELDS: readonly string[] = NEW_PET_REQUIRED;
const FIELDS = new Set(NEW_PET_FIELDS);

/**
 * `json`: the record's text when it is the pet exactly as JSON.stringify writes it (name, categoryId,
 * status in that order, no spaces): a dry run copies it into its line instead of writing it anew.
 */
export type RecordCheck = { ok: true; pet: NewPet; json?: string } | { ok: false; problems: string[] };
export type PetCheck = Extract<RecordCheck, { ok: true }>;

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'bigint') return value.toString();
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return String(value);
}

/**
 * Checks one NewPet record from a bulk file with the rules `pets add` applies
 * to its flags. `fromText` is true for CSV, where every cell is text.
 */
export function checkNewPet(value: unknown, fromText = false): RecordCheck {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, problems: [`expected an object with name and categoryId, got ${describe(value)}`] };
  }
  const v = value as Record<string, unknown>;
  const problems: string[] = [];
  for (const key of Object.keys(v)) {
    if (!FIELDS.has(key)) problems.push(`unknown field "${key}" (allowed: ${NEW_PET_FIELDS.join(', ')})`);
  }
  if (v.name === undefined) problems.push('name is missing');
  else if (typeof v.name !== 'string' || v.name.trim() === '') problems.push(`name must be a non-empty string, got ${describe(v.name)}`);

  let categoryId: bigint | undefined;
  if (v.categoryId === undefined || (fromText && v.categoryId === '')) problems.push('categoryId is missing');
  else {
    categoryId = fromText && typeof v.categoryId === 'string' ? parseInt64(v.categoryId) : toInt64(v.categoryId);
    if (categoryId === undefined) {
      problems.push(`categoryId must be a whole number from ${INT64_MIN} to ${INT64_MAX}, got ${describe(v.categoryId)}`);
    }
  }

  const rawStatus = fromText && v.status === '' ? undefined : v.status;
  const status = isPetStatus(rawStatus) ? rawStatus : undefined;
  if (rawStatus !== undefined && status === undefined) {
    problems.push(`status must be one of ${PET_STATUSES.join(', ')}, got ${describe(rawStatus)}`);
  }
  if (problems.length > 0 || categoryId === undefined) return { ok: false, problems };
  return { ok: true, pet: { name: v.name as string, categoryId, ...(status !== undefined ? { status } : {}) } };
}

const NAME_KEY = '"name"';
const CATEGORY_KEY = '"categoryId"';
const STATUS_KEY = '"status"';
/** The keys in the order JSON.stringify writes a NewPet's. */
const EXACT_ORDER = [NAME_KEY, CATEGORY_KEY, STATUS_KEY];

/** The code unit at `i` of s[.., end), NaN past it: the text may go on (a chunk of many lines), the record does not. */
function codeAt(s: string, i: number, end: number): number {
  return i < end ? s.charCodeAt(i) : Number.NaN;
}

/**
 * The NewPet of one JSON record, s[start, end), when it is an object of the usual shape that
 * checkNewPet accepts: name, categoryId and an optional status, once each; strings without escapes; an
 * integer literal for categoryId. Anything else, a valid record or not, is undefined: parseJson and
 * checkNewPet decide, so a problem is reported as it always was. Read straight from the text, a typical
 * line costs a third of JSON.parse and the check, and leaves no parsed object behind.
 */
export function quickPet(s: string, start: number, end: number): PetCheck | undefined {
  const open = skipSpace(s, start, end);
  let i = open;
  if (codeAt(s, i, end) !== OPEN_BRACE) return undefined;
  let name: string | undefined;
  let categoryId: bigint | undefined;
  let status: PetStatus | undefined;
  let hasStatus = false;
  // Still JSON.stringify's text of the pet: no space so far, and the keys in NewPet's order.
  let exact = true;
  let keys = 0;
  for (;;) {
    let at = i + 1;
    i = skipSpace(s, at, end);
    if (i !== at) exact = false;
    // The key, quotes included: one of the three, as written (an escape in it is the exact path's).
    const key = s.startsWith('"name"', i) ? NAME_KEY : s.startsWith('"categoryId"', i) ? CATEGORY_KEY : s.startsWith('"status"', i) ? STATUS_KEY : '';
    if (key === '' || i + key.length > end) return undefined;
    if (key !== EXACT_ORDER[keys++]) exact = false;
    at = i + key.length;
    i = skipSpace(s, at, end);
    if (i !== at) exact = false;
    if (codeAt(s, i, end) !== COLON) return undefined;
    at = i + 1;
    i = skipSpace(s, at, end);
    if (i !== at) exact = false;
    if (key === NAME_KEY && name === undefined) {
      const valueEnd = plainStringEnd(s, i, end);
      if (valueEnd === -1) return undefined;
      name = s.slice(i + 1, valueEnd);
      i = valueEnd + 1;
    } else if (key === STATUS_KEY && !hasStatus) {
      const valueEnd = plainStringEnd(s, i, end);
      if (valueEnd === -1) return undefined;
      status = statusAt(s, i + 1, valueEnd);
      if (status === undefined) return undefined;
      hasStatus = true;
      i = valueEnd + 1;
    } else if (key === CATEGORY_KEY && categoryId === undefined) {
      const literal = i;
      if (codeAt(s, i, end) === MINUS) i++;
      const digits = i;
      let n = 0;
      for (let c = codeAt(s, i, end); c >= ZERO && c <= NINE; c = codeAt(s, ++i, end)) n = n * 10 + (c - ZERO);
      const count = i - digits;
      const next = codeAt(s, i, end);
      // Not an integer literal (none, a leading zero, a fraction, an exponent), or past int64 for sure.
      if (count === 0 || count > 19 || (count > 1 && codeAt(s, digits, end) === ZERO) || next === DOT || (next | 0x20) === 0x65) return undefined;
      // -0 is 0 to JSON.stringify.
      if (literal !== digits && n === 0) exact = false;
      if (count <= 15) categoryId = BigInt(literal === digits ? n : -n);
      else {
        // Past 2^53 a double rounds: the digits themselves, as parseJson keeps them.
        const digitsValue = BigInt(s.slice(literal, i));
        if (digitsValue < INT64_MIN || digitsValue > INT64_MAX) return undefined;
        categoryId = digitsValue;
      }
    } else return undefined;
    at = i;
    i = skipSpace(s, at, end);
    if (i !== at) exact = false;
    const c = codeAt(s, i, end);
    if (c === CLOSE_BRACE) break;
    if (c !== COMMA) return undefined;
  }
  if (skipSpace(s, i + 1, end) !== end || name === undefined || categoryId === undefined || name.trim() === '') return undefined;
  // A name without escapes is its own JSON: text decoded from UTF-8 holds no lone surrogate to escape.
  const json = exact ? s.slice(open, i + 1) : undefined;
  return { ok: true, pet: status === undefined ? { name, categoryId } : { name, categoryId, status }, json };
}

/** Where a CSV header puts each field, for quickCsvPet. */
export interface CsvColumns {
  name: number;
  categoryId: number;
  /** -1: no status column. */
  status: number;
}

/** The columns of a header that names name and categoryId; undefined when it names one twice (the exact path decides which counts). */
export function csvColumns(header: readonly string[]): CsvColumns | undefined {
  if (new Set(header).size !== header.length) return undefined;
  return { name: header.indexOf('name'), categoryId: header.indexOf('categoryId'), status: header.indexOf('status') };
}

/**
 * The NewPet of one CSV row, its fields in the header's order, when checkNewPet reads the row as it is
 * usually written (categoryId plain digits, no spaces, no leading zero); undefined for anything else,
 * which checkNewPet then reads from the row as an object. Spares an object and a regex per row.
 */
export function quickCsvPet(fields: readonly string[], columns: CsvColumns): NewPet | undefined {
  const name = fields[columns.name];
  const id = fields[columns.categoryId];
  if (name === undefined || id === undefined || name.trim() === '') return undefined;
  const negative = id.charCodeAt(0) === MINUS;
  const digits = negative ? 1 : 0;
  const count = id.length - digits;
  if (count === 0 || count > 15 || (count > 1 && id.charCodeAt(digits) === ZERO)) return undefined;
  let n = 0;
  for (let i = digits; i < id.length; i++) {
    const c = id.charCodeAt(i);
    if (c < ZERO || c > NINE) return undefined;
    n = n * 10 + (c - ZERO);
  }
  const categoryId = BigInt(negative ? -n : n);
  const rawStatus = columns.status === -1 ? '' : (fields[columns.status] ?? '');
  if (rawStatus === '') return { name, categoryId };
  const status = statusAt(rawStatus, 0, rawStatus.length);
  return status === undefined ? undefined : { name, categoryId, status };
}
