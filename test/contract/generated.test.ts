// src/contract/petstore.ts is derived from openapi/petstore.yaml: this fails, naming the command, when the
// two differ; UPDATE_CONTRACT=1 (npm run contract) rewrites it.
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { ContractNewPet, ContractPet, ContractPetStatus } from '../../src/contract/petstore.js';
import type { NewPet, Pet, PetStatus } from '../../src/pets/pet.js';
import { GENERATED_PATH, readContract, renderContract } from './generate.js';

describe('the contract module', () => {
  it('is what openapi/petstore.yaml says (npm run contract rewrites it)', () => {
    const want = renderContract(readContract());
    if (process.env.UPDATE_CONTRACT) writeFileSync(GENERATED_PATH, want);
    expect(readFileSync(GENERATED_PATH, 'utf8'), 'src/contract/petstore.ts is stale: run npm run contract').toBe(want);
  });

  it("the CLI's pet types are the description's", () => {
    expectTypeOf<NewPet>().toEqualTypeOf<ContractNewPet>();
    expectTypeOf<Pet>().toEqualTypeOf<ContractPet>();
    expectTypeOf<PetStatus>().toEqualTypeOf<ContractPetStatus>();
  });
});
