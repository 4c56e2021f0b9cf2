import type { Truncate } from './fit.js';
import { escapeControl } from './text.js';

export type Tone = 'green' | 'yellow' | 'red' | 'cyan' | 'gray';

export interface Cell {
  text: string;
  tone?: Tone | undefined;
}

export interface TableTarget {
  tty: boolean;
  color: boolean;
  columns?: number | undefined;
  headers?: boolean | undefined;
}

const GAP = '  ';

export function renderTsv(headers: readonly string[] | false, rows: readonly (readonly Cell[])[]): string {
  const lines = rows.map((r) => r.map((c) => escapeControl(c.text, 'cell')));
  if (headers) lines.unshift(headers.map((h) => escapeControl(h, 'cell')));
  return lines.map((r) => `${r.join('\t')}\n`).join('');
}

export function heading(header: string): string {
  return header
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/_/g, ' ')
    .toUpperCase();
}

// Aligned columns on a terminal (cells escaped first, cut to fit), TSV otherwise. Not cli-table3: it cannot tell
// which column may be cut. string-width and chalk load only for a terminal: a piped `env list` must not wait for them.
export async function renderTable(
  target: TableTarget,
  headers: readonly string[],
  rows: readonly (readonly Cell[])[],
  truncate: readonly (Truncate | undefined)[] = [],
): Promise<string> {
  if (!target.tty) return renderTsv(target.headers !== false && headers, rows);
  const [{ default: stringWidth }, { Chalk }, { fitWidths }, { cut }] = await Promise.all([
    import('string-width'),
    import('chalk'),
    import('./fit.js'),
    import('./cut.js'),
  ]);
  const chalk = new Chalk({ level: target.color ? 1 : 0 });
  const body = rows.map((r) => r.map((c) => ({ text: escapeControl(c.text, 'cell'), tone: c.tone })));
  const head = headers.map((h) => ({ text: heading(h), tone: undefined }));
  const all = target.headers === false ? body : [head, ...body];
  const natural = headers.map((_, i) => Math.max(0, ...all.map((r) => stringWidth(r[i]?.text ?? ''))));
  const widths = target.columns ? fitWidths(natural, truncate, GAP.length, target.columns) : natural;
  const lines = all.map((row, r) =>
    row
      .map((cell, i) => {
        const width = widths[i] as number;
        const text = cut(cell.text, width, stringWidth);
        const shown = r === 0 && target.headers !== false ? chalk.bold(text) : cell.tone && text ? chalk[cell.tone](text) : text;
        return shown + ' '.repeat(Math.max(0, width - stringWidth(text)));
      })
      .join(GAP)
      .trimEnd(),
  );
  return lines.map((l) => `${l}\n`).join('');
}
