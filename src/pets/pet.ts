import { UsageError } from '../errors/errors.js';
import { PET_STATUSES, type PetStatus } from '../flag-values.js';
import { INT64_MAX, INT64_MIN, parseInt64, toInt64 } from '../json/int64.js';

export { PET_STATUSES, type PetStatus };

export interface NewPet {
  name: string;
  categoryId: bigint;
  status?: PetStatus;
}

export interface Pet extends NewPet {
  id: bigint;
}

export function isPetStatus(value: unknown): value is PetStatus {
  return typeof value === 'string' && (PET_STATUSES as readonly string[]).includes(value);
}

/** Reads a Pet from a response body; undefined when its shape is wrong. */
export function toPet(value: unknown): Pet | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const v = value as Record<string, unknown>;
  const id = toInt64(v.id);
  const categoryId = toInt64(v.categoryId);
  if (id === undefined || categoryId === undefined || typeof v.name !== 'string') return undefined;
  if (v.status !== undefined && !isPetStatus(v.status)) return undefined;
  // Keep fields the server may add later; only the known ones are normalised.
  return { ...v, id, name: v.name, categoryId, ...(v.status !== undefined ? { status: v.status } : {}) } as Pet;
}

export function toPets(value: unknown): Pet[] | undefined {
  const pets = Array.isArray(value) ? value.map(toPet) : undefined;
  return pets?.every((pet) => pet !== undefined) ? (pets as Pet[]) : undefined;
}

// The checks of the flags of `pets add` and of the records of `pets add --file`: messages name the flag or field.

export function parseId(text: string, what = 'pet id'): bigint {
  const id = parseInt64(text);
  if (id === undefined) {
    const zeros = /^\s*-?0\d/.test(text) ? ' without leading zeros' : '';
    throw new UsageError(`invalid ${what} "${text}": must be a whole number${zeros} from ${INT64_MIN} to ${INT64_MAX}`);
  }
  return id;
}

export function parseName(text: string, flag = '--name'): string {
  if (text.trim().length === 0) throw new UsageError(`invalid ${flag}: must be a non-empty name`);
  return text;
}
