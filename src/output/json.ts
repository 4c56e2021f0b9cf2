import { stringifyJson } from '../json/int64.js';

export function renderJson(value: unknown, pretty: boolean): string {
  return `${stringifyJson(value, pretty ? 2 : undefined)}\n`;
}

export function renderNdjson(values: readonly unknown[]): string {
  return values.map((v) => `${stringifyJson(v)}\n`).join('');
}
