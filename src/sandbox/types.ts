// Shared types of the sandbox server: the interface's resources and the plans.

export const PET_STATUSES = ['available', 'pending', 'sold'] as const;
export type PetStatus = (typeof PET_STATUSES)[number];

/** A pet as stored and returned. ids are exact int64 values. */
export interface Pet {
  id: bigint;
  name: string;
  categoryId: bigint;
  status?: PetStatus;
}

/** The body of POST /pets once validated. */
export interface NewPet {
  name: string;
  categoryId: bigint;
  status?: PetStatus;
}

export const PLANS = ['free', 'pro', 'business'] as const;
export type Plan = (typeof PLANS)[number];

/** The plan table of the interface document (requests per minute and per day). */
export const PLAN_LIMITS: Readonly<Record<Plan, { perMinute: number; perDay: number }>> = {
  free: { perMinute: 60, perDay: 1_000 },
  pro: { perMinute: 300, perDay: 10_000 },
  business: { perMinute: 1_000, perDay: 100_000 },
};

export function isPetStatus(value: unknown): value is PetStatus {
  return value === 'available' || value === 'pending' || value === 'sold';
}

/** Exact JSON text of a pet: fields in document order, int64 as exact digits. */
export function petJson(pet: Pet): string {
  const status = pet.status === undefined ? '' : `,"status":"${pet.status}"`;
  return `{"id":${pet.id},"name":${JSON.stringify(pet.name)},"categoryId":${pet.categoryId}${status}}`;
}
