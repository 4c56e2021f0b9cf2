// Shared helpers of the sandbox tests: real HTTP calls with fetch.

import { parseJson } from '../../src/json/int64.js';
import type { SandboxHandle } from '../../src/sandbox/server.js';

export interface CallOptions {
  /** API key to send; null sends no Authorization header. Default: the sandbox's first key. */
  key?: string | null;
  /** A string body is sent with Content-Type: application/json unless headers say otherwise. */
  body?: string | Uint8Array;
  headers?: Record<string, string>;
}

export interface CallResult {
  status: number;
  headers: Headers;
  text: string;
  /** The body parsed with exact int64 (undefined when not JSON). */
  json: unknown;
}

export async function call(sb: SandboxHandle, method: string, path: string, options: CallOptions = {}): Promise<CallResult> {
  const headers: Record<string, string> = {};
  const key = options.key === undefined ? sb.keys[0] : options.key;
  if (key !== null && key !== undefined) headers.authorization = `Bearer ${key}`;
  if (typeof options.body === 'string') headers['content-type'] = 'application/json';
  Object.assign(headers, options.headers);
  const init: RequestInit = { method, headers };
  if (options.body !== undefined) init.body = options.body as NonNullable<RequestInit['body']>;
  const res = await fetch(sb.url + path, init);
  const text = await res.text();
  let json: unknown;
  try {
    json = parseJson(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

export function createPet(sb: SandboxHandle, body: Record<string, unknown> | string, options: CallOptions = {}): Promise<CallResult> {
  return call(sb, 'POST', '/v1/pets', { ...options, body: typeof body === 'string' ? body : JSON.stringify(body) });
}

/** Asserts an Error body: exactly code, message and status (= the HTTP status). */
export function errorBody(r: CallResult): { code: string; message: string; status: number } {
  const b = r.json as Record<string, unknown>;
  if (typeof b !== 'object' || b === null) throw new Error(`not an Error body: ${r.text}`);
  const keys = Object.keys(b).sort().join(',');
  if (keys !== 'code,message,status') throw new Error(`Error body has keys ${keys}: ${r.text}`);
  if (b.status !== r.status) throw new Error(`Error body status ${String(b.status)} != HTTP ${r.status}`);
  if (typeof b.code !== 'string' || typeof b.message !== 'string') throw new Error(`bad Error body: ${r.text}`);
  return { code: b.code, message: b.message, status: b.status };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
