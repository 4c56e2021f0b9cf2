/** The first value of a response header (undici and node:http give repeated headers as arrays). */
export function firstValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
