/** One RFC 4180 field: quoted when it holds a comma, quote, CR or LF (quotes doubled). */
export function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function renderCsv(headers: readonly string[] | false, rows: readonly (readonly string[])[]): string {
  return [...(headers ? [headers] : []), ...rows].map((r) => `${r.map(csvField).join(',')}\n`).join('');
}
