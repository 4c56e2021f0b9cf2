import type { Factory } from '../../factory.js';
import { malformed } from '../../http/response-errors.js';
import { resolveFormat, type Format } from '../../output/format.js';
import { printRecord } from '../../output/print.js';
import { parseId, parseName, parseStatus, toPet, type NewPet } from '../../pets/pet.js';
import { petView } from './view.js';

export interface AddOptions {
  pet: NewPet;
  format: Format;
}

export async function command(f: Factory, _args: string[], opts: Record<string, unknown>): Promise<void> {
  const format = resolveFormat(opts);
  const pet: NewPet = {
    name: parseName(String(opts.name ?? '')),
    categoryId: parseId(String(opts.categoryId ?? ''), '--category-id'),
  };
  if (opts.status !== undefined) pet.status = parseStatus(String(opts.status));
  await run(f, { pet, format });
}

export async function run(f: Factory, options: AddOptions): Promise<void> {
  const client = await f.client();
  const res = await client.call({ method: 'POST', path: '/pets', body: options.pet });
  const pet = toPet(res.json);
  if (!pet) throw malformed(res, 'the created pet with its id');
  await printRecord(f, options.format, petView, pet);
}
