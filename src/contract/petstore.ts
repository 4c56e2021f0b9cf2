// Generated from openapi/petstore.yaml by `npm run contract` (test/contract/generate.ts): do not edit.
// test/contract/generated.test.ts fails when this file and the description differ. The CLI's flags and
// record checks and the sandbox's request validation take their rules from here.

/** components.schemas.PetStatus */
export const PET_STATUSES = ['available', 'pending', 'sold'] as const;
export type ContractPetStatus = (typeof PET_STATUSES)[number];

/** GET /pets, the limit query parameter. */
export const LIST_LIMIT = { min: 1, max: 100, default: 20 } as const;

/** components.schemas.NewPet: its fields, and those required. */
export const NEW_PET_FIELDS = ['name', 'categoryId', 'status'] as const;
export const NEW_PET_REQUIRED = ['name', 'categoryId'] as const;

/** GET /pets/{petId} is deprecated; x-sunset is the removal date the interface document gives. */
export const GET_PET_SUNSET = '2030-12-05';

/** components.schemas.NewPet (int64 as bigint: exact). */
export interface ContractNewPet {
  name: string;
  categoryId: bigint;
  status?: ContractPetStatus;
}

/** components.schemas.Pet */
export interface ContractPet extends ContractNewPet {
  id: bigint;
}

/** components.schemas.Error */
export interface ContractError {
  code: string;
  message: string;
  status: number;
}
