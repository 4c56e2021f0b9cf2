import { escapeControl, tsvField } from './text.js';

export type Tone = 'green' | 'yellow' | 'red' | 'cyan' | 'gray';

export interface Cell {
  text: string;
  /** Colour on a colour terminal; ignored otherwise. */
  tone?: Tone | undefined;
}

export interface TableTarget {
  /** stdout is a terminal: a bordered table; otherwise tab-separated rows. */
  tty: boolean;
  /** Colour allowed on stdout (TTY, no NO_COLOR/--no-color/TERM=dumb). */
  color: boolean;
}

/** Tab-separated: a header line, then one line per row; no colour, no borders. */
export function renderTsv(headers: readonly string[], rows: readonly (readonly Cell[])[]): string {
  return [headers.map((h) => tsvField(h)), ...rows.map((r) => r.map((c) => tsvField(c.text)))].map((r) => `${r.join('\t')}\n`).join('');
}

/**
 * A cli-table3 table on a terminal (colour when allowed), tab-separated text otherwise.
 * cli-table3 and chalk are loaded only for the terminal case, to keep piped runs fast.
 */
export async function renderTable(target: TableTarget, headers: readonly string[], rows: readonly (readonly Cell[])[]): Promise<string> {
  if (!target.tty) return renderTsv(headers, rows);
  const [{ default: Table }, { Chalk }] = await Promise.all([import('cli-table3'), import('chalk')]);
  const chalk = new Chalk({ level: target.color ? 1 : 0 });
  const table = new Table({
    head: headers.map((h) => chalk.bold(h)),
    // cli-table3's own colours (red headers, grey borders) bypass our colour decision: off.
    style: { head: [], border: [] },
  });
  for (const row of rows) {
    table.push(row.map((c) => (c.tone ? chalk[c.tone](escapeControl(c.text)) : escapeControl(c.text))));
  }
  return `${table.toString()}\n`;
}
