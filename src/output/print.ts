import type { IO } from '../io/io.js';
import type { Format } from './format.js';
import { renderJson, renderNdjson } from './json.js';
import { terminalJson } from './json-terminal.js';
import type { Query } from './query.js';
import { renderTable, type Cell, type Tone, type Truncate } from './table.js';
import { escapeControl } from './text.js';
import { stringifyJson } from '../json/int64.js';

/** One RFC 4180 field: quoted when it holds a comma, quote, CR or LF (quotes doubled). */
export function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function renderCsv(headers: readonly string[] | false, rows: readonly (readonly string[])[]): string {
  return [...(headers ? [headers] : []), ...rows].map((r) => `${r.map(csvField).join(',')}\n`).join('');
}

interface Column<T> {
  header: string;
  text(row: T): string;
  tone?(row: T): Tone | undefined;
  truncate?: Truncate;
}

export interface View<T> {
  columns: readonly Column<T>[];
  json(row: T): unknown;
}

type PrintOptions = { headers?: boolean | undefined; query?: Query | undefined };

type Grid = { headers: string[]; rows: Cell[][]; truncate: (Truncate | undefined)[]; headless?: boolean };

function viewGrid<T>(view: View<T>, rows: readonly T[]): Grid {
  const columns = view.columns;
  return {
    headers: columns.map((c) => c.header),
    rows: rows.map((r) => columns.map((c) => ({ text: c.text(r), tone: c.tone?.(r) }))),
    truncate: columns.map((c) => c.truncate),
  };
}

// A --query result as rows: each item of an array (else the value itself) a row, an object's keys its columns
// (as the Azure CLI's table). Values that are no objects are one headless column, as `gh --jq` prints them.
function resultGrid(result: unknown): Grid {
  const items = result === null ? [] : Array.isArray(result) ? result : [result];
  const isRecord = (item: unknown): item is Record<string, unknown> => item !== null && typeof item === 'object' && !Array.isArray(item);
  const records = items.map((item): Record<string, unknown> => (isRecord(item) ? item : { '': item }));
  const headers = [...new Set(records.flatMap((r) => Object.keys(r)))];
  const text = (v: unknown) => (v === null || v === undefined ? '' : typeof v === 'object' ? stringifyJson(v) : String(v));
  return { headers, rows: records.map((r) => headers.map((h) => ({ text: text(r[h]) }))), truncate: [], headless: !items.some(isRecord) };
}

// Piped, every format is the data exactly (the table is TSV); on a terminal it is escaped (src/output/text.ts).
// With --query, the JSON value (the record, or the array of a list) is replaced by the query's result.
async function render<T>(io: IO, format: Format, view: View<T>, rows: readonly T[], single: boolean, opts: PrintOptions): Promise<string> {
  const query = opts.query;
  const value = () => (single ? view.json(rows[0] as T) : rows.map((r) => view.json(r)));
  const result = query?.search(value());
  switch (format) {
    case 'json': {
      const json = renderJson(query ? result : value(), io.stdoutIsTTY);
      if (!io.stdoutIsTTY) return json;
      return terminalJson(json, io.colorStdout);
    }
    case 'ndjson': {
      const ndjson = renderNdjson(query ? (Array.isArray(result) ? result : [result]) : rows.map((r) => view.json(r)));
      return io.stdoutIsTTY ? escapeControl(ndjson, 'json') : ndjson;
    }
    case 'csv': {
      const grid = query ? resultGrid(result) : viewGrid(view, rows);
      const cell = io.stdoutIsTTY ? (text: string) => escapeControl(text, 'cell') : (text: string) => text;
      return renderCsv(
        opts.headers !== false && !grid.headless && grid.headers,
        grid.rows.map((r) => r.map((c) => cell(c.text))),
      );
    }
    case 'table': {
      const grid = query ? resultGrid(result) : viewGrid(view, rows);
      const target = { tty: io.stdoutIsTTY, color: io.colorStdout, columns: io.columns, headers: opts.headers !== false && !grid.headless };
      return renderTable(target, grid.headers, grid.rows, grid.truncate);
    }
  }
}

interface Printer {
  io: IO;
  redact?: (text: string) => string;
}

export async function printList<T>(f: Printer, format: Format, view: View<T>, rows: readonly T[], opts: PrintOptions = {}): Promise<void> {
  const text = await render(f.io, format, view, rows, false, opts);
  f.io.stdout.write(f.redact ? f.redact(text) : text);
}

export async function printRecord<T>(f: Printer, format: Format, view: View<T>, row: T, opts: PrintOptions = {}): Promise<void> {
  const text = await render(f.io, format, view, [row], true, opts);
  f.io.stdout.write(f.redact ? f.redact(text) : text);
}
