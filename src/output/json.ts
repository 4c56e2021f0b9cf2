import { stringifyJson } from '../json/int64.js';

export function renderJson(value: unknown, pretty: boolean): string {
  return `${stringifyJson(value, pretty ? 2 : undefined)}\n`;
}

/** One compact JSON value per line; an empty list prints nothing. */
export function renderNdjson(values: readonly unknown[]): string {
  return values.map((v) => `${stringifyJson(v)}\n`).join('');
}
