import { NEW_PET_FIELDS as CONTRACT_FIELDS, NEW_PET_REQUIRED } from '../contract/petstore.js';
import { INT64_MAX, INT64_MIN, parseInt64, toInt64 } from '../json/int64.js';
import { isPetStatus, PET_STATUSES, type NewPet } from '../pets/pet.js';

/** The fields a record may have (a CSV header may name), and those it must have: NewPet's (openapi/petstore.yaml). */
export const NEW_PET_FIELDS: readonly string[] = CONTRACT_FIELDS;
export const REQUIRED_FIELDS: readonly string[] = NEW_PET_REQUIRED;
const FIELDS = new Set(NEW_PET_FIELDS);

export type RecordCheck = { ok: true; pet: NewPet } | { ok: false; problems: string[] };

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
