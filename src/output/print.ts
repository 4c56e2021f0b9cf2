import type { IO } from '../io/io.js';
import { renderCsv } from './csv.js';
import type { Truncate } from './fit.js';
import type { Format } from './format.js';
import { renderJson, renderNdjson } from './json.js';
import { terminalJson } from './json-terminal.js';
import { renderTable, type Tone } from './table.js';
import { escapeControl } from './text.js';

interface Column<T> {
  header: string;
  text(row: T): string;
  tone?(row: T): Tone | undefined;
  /** On a terminal narrower than the table: `first` to give way, `never` for ids; others after `first`. */
  truncate?: Truncate;
}

export interface View<T> {
  columns: readonly Column<T>[];
  json(row: T): unknown;
}

type PrintOptions = { headers?: boolean | undefined };

// Piped, every format is the data exactly (the table is TSV); on a terminal it is escaped (src/output/text.ts).
async function render<T>(io: IO, format: Format, view: View<T>, rows: readonly T[], single: boolean, opts: PrintOptions): Promise<string> {
  const headers = opts.headers !== false;
  switch (format) {
    case 'json': {
      const json = renderJson(single ? view.json(rows[0] as T) : rows.map((r) => view.json(r)), io.stdoutIsTTY);
      if (!io.stdoutIsTTY) return json;
      return terminalJson(json, io.colorStdout);
    }
    case 'ndjson': {
      const ndjson = renderNdjson(rows.map((r) => view.json(r)));
      return io.stdoutIsTTY ? escapeControl(ndjson, 'json') : ndjson;
    }
    case 'csv': {
      const cell = io.stdoutIsTTY ? (text: string) => escapeControl(text, 'cell') : (text: string) => text;
      return renderCsv(
        headers && view.columns.map((c) => c.header),
        rows.map((r) => view.columns.map((c) => cell(c.text(r)))),
      );
    }
    case 'table':
      return renderTable(
        { tty: io.stdoutIsTTY, color: io.colorStdout, columns: io.columns, headers },
        view.columns.map((c) => c.header),
        rows.map((r) => view.columns.map((c) => ({ text: c.text(r), tone: c.tone?.(r) }))),
        view.columns.map((c) => c.truncate),
      );
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
