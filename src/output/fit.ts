export type Truncate = 'first' | 'never';

/** Narrowest a truncated column gets (with its "…"), unless it is narrower already. */
const MIN_WIDTH = 5;

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
