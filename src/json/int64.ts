// Exact int64 JSON: ids and categoryIds may exceed 2^53, where a number rounds. Integers beyond the safe range parse
// to bigint, and bigints print as exact digits.

declare global {
  interface JSON {
    rawJSON(text: string): unknown;
  }
}

const INTEGER = /^-?(0|[1-9]\d*)$/;

export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;

/** Whether a number beyond the safe range is anywhere in a parsed value (an unsafe integer's source rounded to one). */
function beyondSafe(value: unknown): boolean {
  if (typeof value === 'number') return Math.abs(value) > Number.MAX_SAFE_INTEGER;
  if (typeof value !== 'object' || value === null) return false;
  for (const v of Array.isArray(value) ? value : Object.values(value)) if (beyondSafe(v)) return true;
  return false;
}

/** Parses JSON; integers beyond Number.MAX_SAFE_INTEGER become bigint. */
export function parseJson(text: string): unknown {
  // The reviver takes JSON.parse off its fast path: it reads the source again only when a number came out beyond the safe range.
  const plain: unknown = JSON.parse(text);
  if (!beyondSafe(plain)) return plain;
  return JSON.parse(text, function (this: unknown, _key: string, value: unknown, context?: { source?: string }) {
    if (typeof value === 'number' && !Number.isSafeInteger(value) && context?.source && INTEGER.test(context.source)) {
      return BigInt(context.source);
    }
    return value;
  } as (key: string, value: unknown) => unknown);
}

const SAFE_MIN = BigInt(Number.MIN_SAFE_INTEGER);
const SAFE_MAX = BigInt(Number.MAX_SAFE_INTEGER);

/** `value` with each bigint as a number when safe (the same digits, and cheaper), else its raw JSON digits; objects copied only where one is found. */
function rawBigints(value: unknown): unknown {
  if (typeof value === 'bigint') return value >= SAFE_MIN && value <= SAFE_MAX ? Number(value) : JSON.rawJSON(value.toString());
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(rawBigints);
  let copy: Record<string, unknown> | undefined;
  for (const key in value) {
    const v = (value as Record<string, unknown>)[key];
    const raw = rawBigints(v);
    if (raw !== v) (copy ??= { ...value })[key] = raw;
  }
  return copy ?? value;
}

/** Stringifies JSON, writing bigints as exact integer literals (a walk first: a replacer takes JSON.stringify off its fast path). */
export function stringifyJson(value: unknown, indent?: number): string {
  return JSON.stringify(rawBigints(value), null, indent);
}

/** An int64 from a JSON number or bigint; undefined when it is not an integer within signed 64-bit range. */
export function toInt64(value: unknown): bigint | undefined {
  // A safe integer is always within range.
  if (typeof value === 'number') return Number.isSafeInteger(value) ? BigInt(value) : undefined;
  return typeof value === 'bigint' && value >= INT64_MIN && value <= INT64_MAX ? value : undefined;
}

/** Parses a user-typed int64 (decimal digits, optional minus). */
export function parseInt64(text: string): bigint | undefined {
  const trimmed = text.trim();
  return INTEGER.test(trimmed) ? toInt64(BigInt(trimmed)) : undefined;
}
