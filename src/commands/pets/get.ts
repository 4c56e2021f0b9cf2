import type { Factory } from '../../factory.js';
import type { ApiResponse } from '../../transport/exchange.js';
import { malformed } from '../../api/errors.js';
import { getPet } from '../../api/pets.js';
import { resolveOutput, type OutputOptions } from '../../output/format.js';
import { printRecord } from '../../output/print.js';
import { escapeControl } from '../../output/text.js';
import { parseId, toPet } from '../../pets/pet.js';
import { petView } from './view.js';
import { GET_PET_REMOVAL } from '../../flag-values.js';

export interface GetOptions extends OutputOptions {
  id: bigint;
}

export const DEPRECATION_WARNING =
  `warning: "pets get" uses GET /pets/{petId}, which is deprecated and will be removed on ${GET_PET_REMOVAL}; ` +
  'use "petstore pets list --status <status>" instead';

export async function command(f: Factory, args: string[], opts: Record<string, unknown>): Promise<void> {
  const output = resolveOutput(opts);
  await run(f, { id: parseId(args[0] ?? '', 'pet id'), ...output });
}

function header(res: ApiResponse | undefined, name: string): string | undefined {
  const v = res?.headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
}

function describeDeprecation(value: string): string {
  const m = /^@(-?\d+)$/.exec(value.trim());
  if (!m) return value;
  const date = new Date(Number(m[1]) * 1000);
  return Number.isNaN(date.getTime()) ? value : `${value} (${date.toISOString()})`;
}

export function deprecationLines(res: ApiResponse | undefined): string[] {
  const lines = [DEPRECATION_WARNING];
  const deprecation = header(res, 'deprecation');
  const sunset = header(res, 'sunset');
  const parts = [
    ...(deprecation !== undefined ? [`Deprecation: ${describeDeprecation(deprecation)}`] : []),
    ...(sunset !== undefined ? [`Sunset: ${sunset}`] : []),
  ];
  if (parts.length > 0) lines.push(`warning: the server says ${escapeControl(parts.join('; '))}`);
  return lines;
}

export async function run(f: Factory, options: GetOptions): Promise<void> {
  const client = await f.client();
  let res: ApiResponse | undefined;
  try {
    res = await getPet(client, options.id);
  } finally {
    // Shown whether or not the call worked: the command itself is what is deprecated.
    if (!f.signal.aborted) for (const line of deprecationLines(res)) f.info(line);
  }
  const pet = toPet(res.json);
  if (!pet) throw malformed(res, 'a pet');
  await printRecord(f, options.format, petView, pet, options);
}
