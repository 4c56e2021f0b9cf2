// The interface's Error body ({ code, message, status }): the retrying client reads it to recognise a ban,
// the API layer to describe any failure.
import type { ApiResponse } from '../transport/exchange.js';

/** A ban: what the sandbox answers a key that retried too early after a 429. */
export function isBan(res: ApiResponse): boolean {
  return res.status === 403 && apiErrorBody(res)?.code === 'key_banned';
}

export function apiErrorBody(res: ApiResponse): { code: string; message: string; status: number } | undefined {
  const b = res.json as Record<string, unknown> | undefined;
  if (!res.isJson || typeof b !== 'object' || b === null || Array.isArray(b)) return undefined;
  if (typeof b.code !== 'string' || typeof b.message !== 'string') return undefined;
  return { code: b.code, message: b.message, status: typeof b.status === 'number' ? b.status : res.status };
}
