import type { Factory } from '../../factory.js';
import { listPets } from '../../api/pets.js';
import { resolveOutput, type OutputOptions } from '../../output/format.js';
import { printMoreHint } from '../../output/more-hint.js';
import { printList } from '../../output/print.js';
import type { PetStatus } from '../../pets/pet.js';
import { petView } from './view.js';

export async function command(f: Factory, _args: string[], opts: Record<string, unknown>): Promise<void> {
  await run(f, { ...resolveOutput(opts), limit: opts.limit as number | undefined, status: opts.status as PetStatus | undefined });
}

export async function run(f: Factory, options: OutputOptions & { limit: number | undefined; status: PetStatus | undefined }): Promise<void> {
  const pets = await listPets(await f.client(), options);
  if (pets.length === 0 && options.format === 'table' && f.io.stdoutIsTTY) f.info('no pets found');
  await printList(f, options.format, petView, pets, options);
  await printMoreHint(f, pets.length, options.limit);
}
