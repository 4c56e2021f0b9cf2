import type { HttpMethod } from '../flag-values.js';

export type { HttpMethod };

/** Methods whose repetition cannot change anything on the server. */
export function isSafeMethod(method: HttpMethod | string): boolean {
  const m = method.toUpperCase();
  return m === 'GET' || m === 'HEAD' || m === 'OPTIONS';
}
