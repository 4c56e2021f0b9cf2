import { stringifyJson } from '../json/int64.js';

/** JSON with exact int64: pretty (2 spaces) for a terminal, compact for a pipe. */
export function renderJson(value: unknown, pretty: boolean): string {
  return `${stringifyJson(value, pretty ? 2 : undefined)}\n`;
}

/** One compact JSON value per line; an empty list prints nothing. */
export function renderNdjson(values: readonly unknown[]): string {
  return values.map((v) => `${stringifyJson(v)}\n`).join('');
}
