import { seed, type SeedOptions } from '../../bulk/seed.js';
import { UsageError } from '../../errors/errors.js';
import type { Factory } from '../../factory.js';
import { FILE_RESULT_FORMATS } from '../../flag-values.js';
import { resolveFormat } from '../../output/format.js';

/** How long requests in flight may finish after Ctrl-C. */
const GRACE_MS = 10_000;

export async function command(f: Factory, _args: string[], opts: Record<string, unknown>): Promise<void> {
  // A dry run reads as fast as the disk allows and keeps little: size-optimised GC holds its RSS
  // under 100 MB at a million lines. Not for a run that sends: it made V8 keep a ~1 MB young
  // generation, and a 100,000-record run spent 76 µs of CPU per record against 53 µs without it
  // (260 scavenges and 17 full collections per 20,000 records against 44 and 3), for a peak RSS of
  // 108 MB against 240 MB; the live set stays ~11 MB either way, and the heap stops growing after
  // a few seconds (issue #18).
  if (opts.dryRun === true) process.getBuiltinModule('node:v8').setFlagsFromString('--optimize-for-size');
  if (opts.json === true)
    throw new UsageError('--json does not apply with --file: results are NDJSON lines (-o ndjson, the default) or a summary table (-o table)');
  // Without -o, results are NDJSON lines: the table default of other commands would hide them.
  const output = opts.output === undefined ? 'ndjson' : (resolveFormat(opts, FILE_RESULT_FORMATS) as (typeof FILE_RESULT_FORMATS)[number]);
  if (opts.retryUnknown !== undefined && opts.resume === undefined) {
    throw new UsageError('--retry-unknown needs --resume: it resends the records the journal shows as unknown (check them first)');
  }
  if (opts.dryRun === true && opts.results !== undefined) {
    throw new UsageError('--dry-run sends nothing, so it keeps no journal: drop --results (what would be sent goes to stdout)');
  }
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  if (opts.report === true) {
    const { report } = await import('../../bulk/report.js');
    return report(f, {
      file: String(opts.file),
      format: str(opts.format),
      resultsPath: str(opts.results),
      resume: opts.resume === true ? true : str(opts.resume),
    });
  }
  await run(f, {
    file: String(opts.file),
    format: str(opts.format),
    skipInvalid: opts.skipInvalid === true,
    dryRun: opts.dryRun === true,
    // A whole number from 1 to 64, default 4: checked as commander parsed it (src/commands/pets/index.ts).
    concurrency: opts.concurrency as number,
    resultsPath: str(opts.results),
    resume: opts.resume === true ? true : str(opts.resume),
    // true: every unknown record; a set: those at these input lines.
    retryUnknown: opts.retryUnknown instanceof Set ? (opts.retryUnknown as ReadonlySet<number>) : opts.retryUnknown === true,
    yes: opts.yes === true,
    output,
    headers: opts.headers !== false,
    graceMs: GRACE_MS,
  });
}

async function run(f: Factory, options: SeedOptions): Promise<void> {
  await seed(f, options);
}
