// Exact int64 JSON: the API's ids and categoryIds may exceed 2^53, where a JS
// number silently rounds. Integers outside the safe range parse to bigint and
// bigints print as exact digits, so nothing is ever lost in transit.

declare global {
  interface JSON {
    rawJSON(text: string): unknown;
  }
}

interface ReviverContext {
  source?: string;
}

const INTEGER = /^-?(0|[1-9]\d*)$/;
const SIXTEEN_DIGITS = /\d{16}/;

export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;

/** Parses JSON; integers beyond Number.MAX_SAFE_INTEGER become bigint. */
export function parseJson(text: string): unknown {
  // Only a run of 16 or more digits can be an unsafe integer; without one the reviver (which costs
  // an object per value) has nothing to do.
  if (!SIXTEEN_DIGITS.test(text)) return JSON.parse(text);
  return JSON.parse(text, function (this: unknown, _key: string, value: unknown, context?: ReviverContext) {
    if (typeof value === 'number' && !Number.isSafeInteger(value) && context?.source && INTEGER.test(context.source)) {
      return BigInt(context.source);
    }
    return value;
  } as (key: string, value: unknown) => unknown);
}

function replacer(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? JSON.rawJSON(value.toString()) : value;
}

/** A bigint as JSON.stringify should write it, exactly: a number while safe, else its digits as raw JSON. */
export function int64Json(value: bigint): unknown {
  return value >= SAFE_MIN && value <= SAFE_MAX ? Number(value) : JSON.rawJSON(value.toString());
}

/** Thrown inside plainCopy for a value it leaves to the replacer. */
const NOT_PLAIN = Symbol('not plain');
/** Deeper than this, plainCopy hands over (a cycle, which JSON.stringify reports, ends up here). */
const MAX_DEPTH = 64;
const SAFE_MAX = BigInt(Number.MAX_SAFE_INTEGER);
const SAFE_MIN = -SAFE_MAX;

/**
 * A copy of a plain value (objects, arrays, primitives) whose bigints JSON.stringify writes as their
 * digits: a safe one as a number, a larger one as raw JSON; anything else (a toJSON, a class instance,
 * a boxed primitive, great depth) throws NOT_PLAIN. A replacer takes JSON.stringify off its fast path:
 * with one, a result line cost ~3× as much, a third of a million-record dry run.
 */
function plainCopy(value: unknown, depth: number): unknown {
  if (typeof value === 'bigint') return int64Json(value);
  if (typeof value !== 'object' || value === null) return value;
  if (depth > MAX_DEPTH || typeof (value as { toJSON?: unknown }).toJSON === 'function') throw NOT_PLAIN;
  const proto: unknown = Object.getPrototypeOf(value);
  if (Array.isArray(value)) {
    if (proto !== Array.prototype) throw NOT_PLAIN;
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = plainCopy(value[i], depth + 1);
    return out;
  }
  if (proto !== Object.prototype && proto !== null) throw NOT_PLAIN;
  const out: Record<string, unknown> = {};
  const keys = Object.keys(value);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    // Assigned, an own "__proto__" (JSON.parse makes one) would set the copy's prototype instead.
    if (key === '__proto__') throw NOT_PLAIN;
    out[key] = plainCopy((value as Record<string, unknown>)[key], depth + 1);
  }
  return out;
}

/** Stringifies JSON, writing bigints as exact integer literals. */
export function stringifyJson(value: unknown, indent?: number): string {
  if (indent === undefined) {
    try {
      return JSON.stringify(plainCopy(value, 0));
    } catch (error) {
      if (error !== NOT_PLAIN) throw error;
    }
  }
  return JSON.stringify(value, replacer, indent);
}

/**
 * Reads an int64 from a JSON value that may be a number, bigint or digit string.
 * Returns undefined when it is not an integer within signed 64-bit range.
 */
export function toInt64(value: unknown): bigint | undefined {
  let n: bigint;
  if (typeof value === 'bigint') n = value;
  else if (typeof value === 'number' && Number.isSafeInteger(value)) n = BigInt(value);
  else return undefined;
  return n >= INT64_MIN && n <= INT64_MAX ? n : undefined;
}

/**
 * The value of an integer literal already checked to be one (optional minus, digits, no leading zero):
 * undefined past int64. Up to 15 characters a double holds it exactly, and BigInt of a number costs less
 * than of text (a bulk run reads two per record).
 */
export function int64FromDigits(digits: string): bigint | undefined {
  if (digits.length <= 15) return BigInt(Number(digits));
  const n = BigInt(digits);
  return n >= INT64_MIN && n <= INT64_MAX ? n : undefined;
}

/** Parses a user-typed int64 (decimal digits, optional minus). */
export function parseInt64(text: string): bigint | undefined {
  const trimmed = text.trim();
  if (!INTEGER.test(trimmed)) return undefined;
  const n = BigInt(trimmed);
  return n >= INT64_MIN && n <= INT64_MAX ? n : undefined;
}
