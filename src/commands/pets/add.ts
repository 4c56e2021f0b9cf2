import type { Command } from 'commander';
import { MalformedResponseError, NetworkError, UsageError } from '../../errors/errors.js';
import { isOutcomeUnknown } from '../../http/outcome.js';
import { stringifyJson } from '../../json/int64.js';
import type { Factory } from '../../factory.js';
import { describeResponse, errorForResponse, malformed } from '../../api/errors.js';
import { sendNewPet } from '../../api/pets.js';
import type { ApiResponse } from '../../transport/exchange.js';
import { firstValue } from '../../wire/headers.js';
import { resolveOutput, type OutputOptions } from '../../output/format.js';
import { printRecord } from '../../output/print.js';
import { parseId, parseName, toPet, type NewPet, type PetStatus } from '../../pets/pet.js';
import { petView } from './view.js';
import { NEW_PET_FIELDS, NEW_PET_REQUIRED } from '../../contract/petstore.js';
import { askChoice, askText } from '../../prompt/ask.js';
import { canAsk } from '../../prompt/confirm.js';

const BULK_ONLY = ['format', 'skipInvalid', 'dryRun', 'results', 'resume', 'retryUnknown', 'report', 'yes'] as const;

export async function command(f: Factory, args: string[], opts: Record<string, unknown>, cmd: Command): Promise<void> {
  const flags = (keys: readonly string[]) => keys.map((k) => cmd.options.find((o) => o.attributeName() === k)?.long).join(', ');
  if (opts.file !== undefined) {
    if (opts.query !== undefined) throw new UsageError('--query cannot be combined with --file: its results are a stream of NDJSON lines, one per record');
    const single = NEW_PET_FIELDS.filter((k) => opts[k] !== undefined);
    if (single.length > 0) throw new UsageError(`${flags(single)} cannot be combined with --file: give the fields in the file's records`);
    return (await import('./add-file.js')).command(f, args, opts);
  }
  const stray = BULK_ONLY.filter((k) => opts[k] !== undefined);
  if (stray.length > 0) throw new UsageError(`${flags(stray)} only applies with --file`);
  const output = resolveOutput(opts);
  const given = { ...opts };
  if (NEW_PET_REQUIRED.some((k) => opts[k] === undefined) && canAsk(f.io, f.env)) Object.assign(given, await askMissing(f, opts, cmd));
  for (const k of NEW_PET_REQUIRED) {
    if (given[k] === undefined) throw new UsageError(`missing ${flags([k])}: "pets add" needs --name and --category-id (or --file)`);
  }
  const pet: NewPet = {
    name: parseName(String(given.name ?? '')),
    categoryId: parseId(String(given.categoryId ?? ''), '--category-id'),
  };
  // Checked as commander parsed it (src/commands/pets/index.ts), or chosen from the same list.
  if (given.status !== undefined) pet.status = given.status as PetStatus;
  await run(f, { pet, ...output });
}

/** At a terminal, the fields the command line left out, asked one by one (the flags given are checked first); "none" is no status. */
async function askMissing(f: Factory, opts: Record<string, unknown>, cmd: Command): Promise<Record<string, unknown>> {
  if (opts.name !== undefined) parseName(String(opts.name));
  if (opts.categoryId !== undefined) parseId(String(opts.categoryId), '--category-id');
  const answers: Record<string, unknown> = {};
  const io = { stdin: f.io.stdin, stderr: f.io.stderr.stream };
  if (opts.name === undefined) answers.name = await askText(io, 'Name', (text) => parseName(text, 'name'), f.signal);
  if (opts.categoryId === undefined) answers.categoryId = await askText(io, 'Category id', (text) => parseId(text, 'category id'), f.signal);
  if (opts.status === undefined) {
    const statuses = cmd.options.find((o) => o.long === '--status')?.argChoices ?? [];
    const status = await askChoice(io, 'Status', ['none', ...statuses], f.signal);
    if (status !== 'none') answers.status = status;
  }
  return answers;
}

/** An answer that cannot be read (even a 2xx) may still mean the pet was created: say so, so the user checks before adding it again. */
function probablyCreated(error: MalformedResponseError, accepted: boolean): MalformedResponseError {
  const note = accepted ? 'the server accepted the request, so the pet was probably created' : 'the pet may have been created';
  return new MalformedResponseError(`${error.message}; ${note}: check before adding it again`, {
    ...(error.code !== undefined ? { code: error.code } : {}),
    status: error.status,
    hint: 'petstore pets list',
    cause: error,
  });
}

/** A 3xx to the POST is not followed (the key would go along, a POST is not repeated); the server may have processed it: exit 7. */
function redirected(pet: NewPet, res: ApiResponse): NetworkError {
  const to = firstValue(res.headers.location);
  return new NetworkError(
    `outcome unknown for pet ${stringifyJson(pet)}: redirected${to ? ` to ${to}` : ''} (${describeResponse(res).message}); ` +
      'a redirected POST is not followed, and the server may have processed it: check with "petstore pets list" before adding it again',
    { code: 'outcome_unknown', status: res.status },
  );
}

export async function run(f: Factory, options: OutputOptions & { pet: NewPet }): Promise<void> {
  const client = await f.client();
  const res = await sendNewPet(client, options.pet).catch((error: unknown) => {
    // Name the record, so the user can look for it before adding it again.
    if (isOutcomeUnknown(error)) {
      throw new NetworkError(`outcome unknown for pet ${stringifyJson(options.pet)}: ${error.message}`, { code: 'outcome_unknown', cause: error });
    }
    if (error instanceof MalformedResponseError) throw probablyCreated(error, false);
    throw error;
  });
  if (res.status >= 300 && res.status < 400) throw redirected(options.pet, res);
  if (res.status < 200 || res.status > 299) throw errorForResponse(res, client.ctx);
  const pet = toPet(res.json);
  if (!pet) throw probablyCreated(malformed(res, 'the created pet with its id'), true);
  await printRecord(f, options.format, petView, pet, options);
}
