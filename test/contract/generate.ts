// Derives src/contract/petstore.ts from openapi/petstore.yaml: the rules the CLI and the sandbox check
// (page size, statuses, NewPet's fields, the removal date of getPet) and the request and response types.
// Run by test/contract/generated.test.ts (which fails when the two differ) and `npm run contract` (which
// writes the file).
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

type Schema = Record<string, unknown>;

export interface Contract {
  statuses: string[];
  limit: { min: number; max: number; default: number };
  newPet: { fields: string[]; required: string[] };
  sunset: string;
}

const YAML_PATH = new URL('../../openapi/petstore.yaml', import.meta.url);
export const GENERATED_PATH = new URL('../../src/contract/petstore.ts', import.meta.url);

function fail(rule: string): never {
  throw new Error(`openapi/petstore.yaml: ${rule}`);
}

/** The rules, read from the description's text. */
export function readContract(text = readFileSync(YAML_PATH, 'utf8')): Contract {
  const doc = parse(text) as Schema;
  const paths = doc.paths as Record<string, Record<string, Schema>>;
  const schemas = (doc.components as Schema).schemas as Record<string, Schema>;
  const statuses = schemas.PetStatus?.enum as string[] | undefined;
  if (!statuses?.length) fail('components.schemas.PetStatus.enum is missing');
  const list = paths['/pets']?.get ?? fail('GET /pets is missing');
  const limit = ((list.parameters as Schema[]) ?? []).find((p) => p.name === 'limit')?.schema as Schema | undefined;
  if (!limit || typeof limit.minimum !== 'number' || typeof limit.maximum !== 'number' || typeof limit.default !== 'number') {
    fail('GET /pets limit needs minimum, maximum and default');
  }
  const newPet = schemas.NewPet ?? fail('components.schemas.NewPet is missing');
  const getPet = paths['/pets/{petId}']?.get ?? fail('GET /pets/{petId} is missing');
  const sunset = getPet['x-sunset'];
  if (typeof sunset !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(sunset)) fail('GET /pets/{petId} needs x-sunset: YYYY-MM-DD');
  return {
    statuses,
    limit: { min: limit.minimum as number, max: limit.maximum as number, default: limit.default as number },
    newPet: { fields: Object.keys(newPet.properties as Schema), required: newPet.required as string[] },
    sunset,
  };
}

const list = (xs: readonly string[]) => `[${xs.map((x) => `'${x}'`).join(', ')}]`;

/** The text of src/contract/petstore.ts for a contract. */
export function renderContract(c: Contract): string {
  return `// Generated from openapi/petstore.yaml by \`npm run contract\` (test/contract/generate.ts): do not edit.
// test/contract/generated.test.ts fails when this file and the description differ. The CLI's flags and
// record checks and the sandbox's request validation take their rules from here.

/** components.schemas.PetStatus */
export const PET_STATUSES = ${list(c.statuses)} as const;
export type ContractPetStatus = (typeof PET_STATUSES)[number];

/** GET /pets, the limit query parameter. */
export const LIST_LIMIT = { min: ${c.limit.min}, max: ${c.limit.max}, default: ${c.limit.default} } as const;

/** components.schemas.NewPet: its fields, and those required. */
export const NEW_PET_FIELDS = ${list(c.newPet.fields)} as const;
export const NEW_PET_REQUIRED = ${list(c.newPet.required)} as const;

/** GET /pets/{petId} is deprecated; x-sunset is the removal date the interface document gives. */
export const GET_PET_SUNSET = '${c.sunset}';

/** components.schemas.NewPet (int64 as bigint: exact). */
export interface ContractNewPet {
${c.newPet.fields.map((f) => `  ${f}${c.newPet.required.includes(f) ? '' : '?'}: ${f === 'name' ? 'string' : f === 'status' ? 'ContractPetStatus' : 'bigint'};`).join('\n')}
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
`;
}
