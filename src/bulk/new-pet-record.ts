import { NEW_PET_FIELDS as CONTRACT_FIELDS, NEW_PET_REQUIRED } from '../contract/petstore.js';
import { INT64_MAX, INT64_MIN, parseInt64, parseJson, toInt64 } from '../json/int64.js';
import { isPetStatus, PET_STATUSES, type NewPet, type PetStatus } from '../pets/pet.js';

/** The fields a record may have (a CSV header may name), and those it must have: NewPet's (openapi/petstore.yaml). */
export const NEW_PET_FIELDS: readonly string[] = CONTRACT_FIELDS;
export const REQUIRED_FIELDS: readonly string[] = NEW_PET_REQUIRED;
const FIELDS = new Set(NEW_PET_FIELDS);

export type RecordCheck = { ok: true; pet: NewPet } | { ok: false; problems: string[] };
export type PetCheck = Extract<RecordCheck, { ok: true }>;

/** One record of a bulk input, checked. */
export interface InputRecord {
  /** 1-based line where the record starts. */
  line: number;
  check: RecordCheck;
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (value === null || typeof value !== 'object') return String(value);
  return Array.isArray(value) ? 'an array' : 'an object';
}

function checkName(name: unknown, problems: string[]): void {
  if (name === undefined) problems.push('name is missing');
  else if (typeof name !== 'string' || name.trim() === '') problems.push(`name must be a non-empty string, got ${describe(name)}`);
}

function checkCategoryId(value: unknown, fromText: boolean, problems: string[]): bigint | undefined {
  if (value === undefined || (fromText && value === '')) {
    problems.push('categoryId is missing');
    return undefined;
  }
  const id = fromText && typeof value === 'string' ? parseInt64(value) : toInt64(value);
  if (id === undefined) problems.push(`categoryId must be a whole number from ${INT64_MIN} to ${INT64_MAX}, got ${describe(value)}`);
  return id;
}

function checkStatus(value: unknown, fromText: boolean, problems: string[]): PetStatus | undefined {
  const raw = fromText && value === '' ? undefined : value;
  if (raw === undefined || isPetStatus(raw)) return raw;
  problems.push(`status must be one of ${PET_STATUSES.join(', ')}, got ${describe(raw)}`);
  return undefined;
}

/** Checks one NewPet record with the rules `pets add` applies to its flags; `fromText` for CSV, where every cell is text. */
export function checkNewPet(value: unknown, fromText = false): RecordCheck {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, problems: [`expected an object with name and categoryId, got ${describe(value)}`] };
  }
  const v = value as Record<string, unknown>;
  const problems: string[] = [];
  for (const key of Object.keys(v)) {
    if (!FIELDS.has(key)) problems.push(`unknown field "${key}" (allowed: ${NEW_PET_FIELDS.join(', ')})`);
  }
  checkName(v.name, problems);
  const categoryId = checkCategoryId(v.categoryId, fromText, problems);
  const status = checkStatus(v.status, fromText, problems);
  if (problems.length > 0 || categoryId === undefined) return { ok: false, problems };
  return { ok: true, pet: { name: v.name as string, categoryId, ...(status !== undefined ? { status } : {}) } };
}

/** One record's JSON text (an NDJSON line, an array element), parsed with int64 ids exact and checked as a NewPet. */
export function checkJsonRecord(source: string): RecordCheck {
  let value: unknown;
  try {
    value = parseJson(source);
  } catch (error) {
    return { ok: false, problems: [`invalid JSON: ${(error as Error).message}`] };
  }
  return checkNewPet(value);
}
