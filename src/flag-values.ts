// The fixed value lists of petstore's flags and arguments (their commander choices) and their checks:
// the one place each list is written (help, validation and completion read them through choiceOption()).

import { GET_PET_SUNSET, LIST_LIMIT, PET_STATUSES } from './contract/petstore.js';
import { UsageError } from './errors/errors.js';

export { PET_STATUSES };
export type PetStatus = (typeof PET_STATUSES)[number];

export const FORMATS = ['table', 'json', 'ndjson', 'csv'] as const;

export const INPUT_FORMATS = ['json', 'ndjson', 'csv'] as const;

export const FILE_RESULT_FORMATS = ['ndjson', 'table'] as const;

export const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;
export type HttpMethod = (typeof METHODS)[number];

export const SHELLS = ['bash', 'zsh', 'fish', 'powershell'] as const;

export const PLANS = ['free', 'pro', 'business'] as const;

export function wholeNumber(flag: string, min: number, max: number): (text: string) => number {
  return (text) => {
    if (!/^\s*\d+\s*$/.test(text) || Number(text) < min || Number(text) > max) {
      throw new UsageError(`invalid ${flag} "${text}": must be a whole number from ${min} to ${max}`);
    }
    return Number(text);
  };
}

export function parseLineList(flag: string): (text: string) => ReadonlySet<number> {
  return (text) => {
    const parts = text.split(',').map((part) => part.trim());
    if (parts.some((part) => !/^\d+$/.test(part) || Number(part) < 1 || !Number.isSafeInteger(Number(part)))) {
      throw new UsageError(`invalid ${flag} "${text}": must be input line numbers separated by commas, e.g. 12,40`);
    }
    return new Set(parts.map(Number));
  };
}

export function notOneOf(what: string, text: string, values: readonly string[]): UsageError {
  return new UsageError(`invalid ${what} "${text}": must be one of ${values.join(', ')}`);
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** "5 December 2030" (UTC). Not toLocaleDateString, whose locale data would load at every start-up. */
export function longDate(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
}

export const GET_PET_REMOVAL = longDate(Date.parse(`${GET_PET_SUNSET}T00:00:00Z`));

export const PAGE_SIZE = { min: LIST_LIMIT.min, max: LIST_LIMIT.max, serverDefault: LIST_LIMIT.default } as const;

export const parseLimit = wholeNumber('--limit', PAGE_SIZE.min, PAGE_SIZE.max);

export function parseMethod(raw: string): HttpMethod {
  const upper = raw.trim().toUpperCase();
  const method = METHODS.find((m) => m === upper);
  if (!method) throw notOneOf('-X/--method', raw, METHODS);
  return method;
}
