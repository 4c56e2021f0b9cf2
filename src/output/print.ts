import type { IO } from '../io/io.js';
import { renderCsv } from './csv.js';
import type { Format } from './format.js';
import { renderJson, renderNdjson } from './json.js';
import { renderTable, type Tone } from './table.js';

interface Column<T> {
  header: string;
  /** The cell as text (table, csv); empty when the value is absent. */
  text(row: T): string;
  tone?(row: T): Tone | undefined;
}

/** How one kind of record prints: its columns, and its JSON form (the API's JSON for pets). */
export interface View<T> {
  columns: readonly Column<T>[];
  json(row: T): unknown;
}

async function render<T>(f: { io: IO }, format: Format, view: View<T>, rows: readonly T[], single: boolean): Promise<string> {
  switch (format) {
    case 'json':
      return renderJson(single ? view.json(rows[0] as T) : rows.map((r) => view.json(r)), f.io.stdoutIsTTY);
    case 'ndjson':
      return renderNdjson(rows.map((r) => view.json(r)));
    case 'csv':
      return renderCsv(
        view.columns.map((c) => c.header),
        rows.map((r) => view.columns.map((c) => c.text(r))),
      );
    case 'table':
      return renderTable(
        { tty: f.io.stdoutIsTTY, color: f.io.colorStdout },
        view.columns.map((c) => c.header),
        rows.map((r) => view.columns.map((c) => ({ text: c.text(r), tone: c.tone?.(r) }))),
      );
  }
}

/** Where data is printed; `redact` masks any key a server echoed in it (src/output/redact.ts). */
interface Printer {
  io: IO;
  redact?: (text: string) => string;
}

/** Prints a list: a table (header only when empty), a JSON array, NDJSON lines or CSV. */
export async function printList<T>(f: Printer, format: Format, view: View<T>, rows: readonly T[]): Promise<void> {
  const text = await render(f, format, view, rows, false);
  f.io.stdout.write(f.redact ? f.redact(text) : text);
}

/** Prints one record: a one-row table or CSV, a JSON object, or one NDJSON line. */
export async function printRecord<T>(f: Printer, format: Format, view: View<T>, row: T): Promise<void> {
  const text = await render(f, format, view, [row], true);
  f.io.stdout.write(f.redact ? f.redact(text) : text);
}
