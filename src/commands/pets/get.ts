import type { Factory } from '../../factory.js';
import type { ApiClient } from '../../http/api-client.js';
import type { ApiResponse } from '../../transport/exchange.js';
import { malformed } from '../../api/errors.js';
import { getPet } from '../../api/pets.js';
import { CliError, InterruptedError, NotFoundError } from '../../errors/errors.js';
import { renderError } from '../../output/error.js';
import { resolveOutput, type OutputOptions } from '../../output/format.js';
import { printList, printRecord } from '../../output/print.js';
import { parseId, toPet, type Pet } from '../../pets/pet.js';
import { parseHttpDate } from '../../wire/http-date.js';
import { firstValue } from '../../wire/headers.js';
import { petView } from './view.js';
import { GET_PET_REMOVAL, longDate } from '../../flag-values.js';

/** Requests in flight at once for several ids; the limiter still paces them. */
const IN_FLIGHT = 4;

export async function command(f: Factory, args: string[], opts: Record<string, unknown>): Promise<void> {
  await run(f, { ...resolveOutput(opts), ids: args.map((arg) => parseId(arg, 'pet id')) });
}

/** The one deprecation line: the removal date of the server's Sunset header when it gives one, else the interface's. */
export function deprecationLine(res: ApiResponse | undefined, now: number): string {
  const sunset = firstValue(res?.headers.sunset);
  const at = sunset === undefined ? undefined : parseHttpDate(sunset, now);
  return (
    `warning: "pets get" uses GET /pets/{petId}, which is deprecated and will be removed on ${at === undefined ? GET_PET_REMOVAL : longDate(at)}; ` +
    'use "petstore pets list --status <status>" instead'
  );
}

type Fetched = { res: ApiResponse; pet: Pet } | { error: unknown };

function fetchPet(client: ApiClient, id: bigint): Promise<Fetched> {
  return getPet(client, id).then(
    (res) => {
      const pet = toPet(res.json);
      return pet ? { res, pet } : { error: malformed(res, 'a pet') };
    },
    (error: unknown) => ({ error }),
  );
}

/** Each id's answer in order, at most IN_FLIGHT at once; Ctrl-C starts no more. */
async function fetchAll(f: Factory, ids: readonly bigint[]): Promise<Fetched[]> {
  const client = await f.client();
  const results: Fetched[] = [];
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < ids.length && !f.signal.aborted; i = next++) results[i] = await fetchPet(client, ids[i] as bigint);
  };
  await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, ids.length) }, worker));
  if (f.signal.aborted) throw new InterruptedError();
  return results;
}

/** The error of one of several ids, naming it. */
function forId(id: bigint, error: unknown): unknown {
  if (!(error instanceof CliError)) return error;
  const { code, status, hint, advice } = error;
  return new CliError(error.kind, `pet ${id}: ${error.message}`, { code, status, hint, advice, cause: error });
}

export async function run(f: Factory, options: OutputOptions & { ids: bigint[] }): Promise<void> {
  const results = await fetchAll(f, options.ids);
  const found = results.flatMap((r) => ('pet' in r ? [r] : []));
  // Shown whether or not the calls worked: the command itself is what is deprecated.
  f.info(deprecationLine(found[0]?.res, f.clock.now()));
  const failures = results.flatMap((r, i) => ('error' in r ? [{ id: options.ids[i] as bigint, error: r.error }] : []));
  if (options.ids.length === 1) {
    if (failures[0]) throw failures[0].error;
    return printRecord(f, options.format, petView, (found[0] as { pet: Pet }).pet, options);
  }
  await printList(
    f,
    options.format,
    petView,
    found.map((r) => r.pet),
    options,
  );
  // Exit 5 when any id was not found, else the first other failure's; its line comes last, the others' in order.
  const deciding = failures.find((x) => x.error instanceof NotFoundError) ?? failures[0];
  const json = options.format === 'json' || options.format === 'ndjson';
  for (const x of failures) if (x !== deciding) renderError(f.io, forId(x.id, x.error), { debug: f.globals.debug, json, secrets: f.secrets() });
  if (deciding) throw forId(deciding.id, deciding.error);
}
