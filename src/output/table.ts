import { escapeControl } from './text.js';

export type Tone = 'green' | 'yellow' | 'red' | 'cyan' | 'gray';
/** On a terminal narrower than the table: `first` columns give way first, `never` ones (ids) not at all. */
export type Truncate = 'first' | 'never';

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
/** Narrowest a truncated column gets (with its "…"), unless it is narrower already. */
const MIN_WIDTH = 5;

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
  const [{ default: stringWidth }, { Chalk }] = await Promise.all([import('string-width'), import('chalk')]);
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

// Widths that fit `available` columns: `first` columns shrink first, then all but `never`, widest first, down to MIN_WIDTH.
export function fitWidths(natural: readonly number[], truncate: readonly (Truncate | undefined)[], gap: number, available: number): number[] {
  const widths = [...natural];
  let excess = widths.reduce((a, b) => a + b, 0) + gap * Math.max(widths.length - 1, 0) - available;
  for (const group of [(t: Truncate | undefined) => t === 'first', (t: Truncate | undefined) => t === undefined]) {
    while (excess > 0) {
      let widest = -1;
      for (let i = 0; i < widths.length; i++) {
        const w = widths[i] as number;
        if (group(truncate[i]) && w > Math.min(MIN_WIDTH, natural[i] as number) && (widest === -1 || w > (widths[widest] as number))) widest = i;
      }
      if (widest === -1) break;
      widths[widest] = (widths[widest] as number) - 1;
      excess--;
    }
  }
  return widths;
}

let graphemes: Intl.Segmenter | undefined;

function cut(text: string, width: number, measure: (s: string) => number): string {
  if (measure(text) <= width) return text;
  if (width <= 0) return '';
  graphemes ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  let out = '';
  let used = 0;
  for (const { segment } of graphemes.segment(text)) {
    const w = measure(segment);
    if (used + w > width - 1) break;
    out += segment;
    used += w;
  }
  return `${out}…`;
}
