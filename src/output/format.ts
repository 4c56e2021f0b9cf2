import { UsageError } from '../errors/errors.js';
import { FORMATS, notOneOf } from '../flag-values.js';
import type { Query } from './query.js';
export type Format = (typeof FORMATS)[number];

export function resolveFormat(opts: Record<string, unknown>, allowed: readonly Format[] = FORMATS): Format {
  const raw = opts.output;
  const json = opts.json === true;
  if (raw === undefined) return json ? 'json' : 'table';
  const value = String(raw) as Format;
  if (!allowed.includes(value)) throw notOneOf('--output', value, allowed);
  if (json && value !== 'json') {
    throw new UsageError(`--json conflicts with --output ${value}: --json is the same as --output json; give only one`);
  }
  return value;
}

export interface OutputOptions {
  format: Format;
  headers?: boolean;
  /** --query, compiled by src/cli.ts before the command runs. */
  query?: Query | undefined;
}

export function resolveOutput(opts: Record<string, unknown>, allowed: readonly Format[] = FORMATS): OutputOptions {
  return { format: resolveFormat(opts, allowed), headers: opts.headers !== false, query: opts.query as Query | undefined };
}
