const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

export function cut(text: string, width: number, measure: (s: string) => number): string {
  if (measure(text) <= width) return text;
  if (width <= 0) return '';
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
