import { seed } from '../../bulk/seed.js';
import { UsageError } from '../../errors/errors.js';
import type { Factory } from '../../factory.js';
import { FILE_RESULT_FORMATS } from '../../flag-values.js';
import { resolveFormat } from '../../output/format.js';

export async function command(f: Factory, _args: string[], opts: Record<string, unknown>): Promise<void> {
  // Size-optimised GC holds a dry run under the memory floor (bench/README.md); a run that sends would pay CPU per record.
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
  const input = {
    file: String(opts.file),
    format: opts.format as string | undefined,
    resultsPath: opts.results as string | undefined,
    resume: opts.resume as true | string | undefined,
  };
  if (opts.report === true) {
    const { report } = await import('../../bulk/report.js');
    return report(f, input);
  }
  await seed(f, {
    ...input,
    skipInvalid: opts.skipInvalid === true,
    dryRun: opts.dryRun === true,
    // A whole number from 1 to 64, default 4: checked as commander parsed it (src/commands/pets/index.ts).
    concurrency: opts.concurrency as number,
    // true: every unknown record; a set: those at these input lines.
    retryUnknown: opts.retryUnknown instanceof Set ? (opts.retryUnknown as ReadonlySet<number>) : opts.retryUnknown === true,
    yes: opts.yes === true,
    output,
    headers: opts.headers !== false,
    // How long requests in flight may finish after Ctrl-C.
    graceMs: 10_000,
  });
}
