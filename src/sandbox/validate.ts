// Reading and validation of requests: every failure is an ApiError whose message names the field.

import type { IncomingMessage } from 'node:http';
import { LIST_LIMIT, NEW_PET_FIELDS, NEW_PET_REQUIRED } from '../contract/petstore.js';
import { INT64_MAX, INT64_MIN, parseJson, stringifyJson, toInt64 } from '../json/int64.js';
import { isPetStatus, PET_STATUSES, type NewPet, type PetStatus } from '../pets/pet.js';
import { apiError } from './errors.js';

const JSON_TYPE = /^application\/(?:[\w.+-]*\+)?json$/;
const MAX_BYTES = 64 * 1024;
/** A larger body is read to its end (up to this) and refused with the connection kept; beyond, it closes. */
const DRAIN_BYTES = 1024 * 1024;
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** Longest accepted pet name, in code points (the document sets none). */
const NAME_MAX_LENGTH = 200;
const FIELD_LIST = `${NEW_PET_FIELDS.slice(0, -1).join(', ')} and ${NEW_PET_FIELDS.at(-1)}`;
const STATUS_LIST = PET_STATUSES.join(', ');

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'bigint') return 'integer';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function preview(value: unknown): string {
  const text = typeof value === 'bigint' ? value.toString() : stringifyJson(value);
  if (text === undefined) return String(value);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

/** The request's client went away before it could be answered: nothing is sent. */
export class ClientGone extends Error {}

/** A Content-Type may be left out; when present it must be JSON (415 otherwise). */
export function checkContentType(contentType: string | undefined): void {
  if (contentType === undefined || contentType.trim() === '') return;
  const mediaType = (contentType.split(';')[0] ?? '').trim().toLowerCase();
  if (!JSON_TYPE.test(mediaType)) {
    const shown = mediaType.length > 60 ? `${mediaType.slice(0, 57)}...` : mediaType;
    throw apiError('unsupported_media_type', `Content-Type must be application/json, got ${JSON.stringify(shown)}`);
  }
}

function tooLarge(close: boolean) {
  return apiError('payload_too_large', `request body is larger than ${MAX_BYTES} bytes`, close ? { connection: 'close' } : undefined);
}

/** The whole body as text (a leading BOM dropped); rejects with a 413, or ClientGone when the client leaves first. */
export async function readBody(req: IncomingMessage): Promise<string> {
  const bytes = await new Promise<Buffer>((resolve, reject) => {
    if (req.destroyed) throw new ClientGone();
    const declared = Number(req.headers['content-length']);
    if (declared > DRAIN_BYTES) throw tooLarge(true);
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > DRAIN_BYTES) {
        req.pause();
        reject(tooLarge(true));
      } else if (size <= MAX_BYTES && !(declared > MAX_BYTES)) chunks.push(chunk);
    });
    req.on('end', () => (size > MAX_BYTES || declared > MAX_BYTES ? reject(tooLarge(false)) : resolve(Buffer.concat(chunks, size))));
    req.on('close', () => {
      if (!req.complete) reject(new ClientGone());
    });
  });
  try {
    return UTF8.decode(bytes);
  } catch {
    throw apiError('invalid_json', 'request body is not valid UTF-8');
  }
}

export function parseBody(text: string): unknown {
  if (text.trim().length === 0) {
    throw apiError('invalid_json', 'request body is empty: expected a JSON object (NewPet) with name and categoryId');
  }
  try {
    return parseJson(text);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw apiError('invalid_json', `request body is not valid JSON: ${detail}`);
  }
}

export function validateNewPet(value: unknown): NewPet {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw apiError('invalid_body', `request body must be a JSON object (NewPet), got ${jsonType(value)}`);
  }
  const body = value as Record<string, unknown>;
  checkFields(body);
  const pet: NewPet = { name: checkName(body.name), categoryId: checkCategoryId(body.categoryId) };
  if (Object.hasOwn(body, 'status')) pet.status = checkStatus(body.status);
  return pet;
}

function checkFields(body: Record<string, unknown>): void {
  for (const key of Object.keys(body)) {
    if (key === 'id') throw apiError('read_only_field', 'id is read-only: the service assigns it on creation; remove it from the body');
    if (!(NEW_PET_FIELDS as readonly string[]).includes(key))
      throw apiError('unknown_field', `unknown field ${JSON.stringify(key)}: a NewPet has only ${FIELD_LIST}`);
  }
  for (const field of NEW_PET_REQUIRED) if (!Object.hasOwn(body, field)) throw apiError('missing_field', `${field} is required`);
}

function checkName(name: unknown): string {
  if (typeof name !== 'string') throw apiError('invalid_field', `name must be a string, got ${jsonType(name)}`);
  if (name.trim().length === 0) throw apiError('invalid_field', 'name must not be empty or blank');
  const length = [...name].length;
  if (length > NAME_MAX_LENGTH) throw apiError('invalid_field', `name must be at most ${NAME_MAX_LENGTH} characters, got ${length}`);
  return name;
}

function checkCategoryId(raw: unknown): bigint {
  const categoryId = toInt64(raw);
  if (categoryId !== undefined) return categoryId;
  const range = jsonType(raw) === 'integer' ? ` from ${INT64_MIN} to ${INT64_MAX}` : '';
  const type = typeof raw === 'number' || typeof raw === 'bigint' ? '' : `${jsonType(raw)} `;
  throw apiError('invalid_field', `categoryId must be an integer${range} (int64), got ${type}${preview(raw)}`);
}

function checkStatus(status: unknown): PetStatus {
  if (isPetStatus(status)) return status;
  const got = typeof status === 'string' ? JSON.stringify(status) : jsonType(status);
  throw apiError('invalid_field', `status must be one of ${STATUS_LIST}, got ${got}`);
}

/** Reads the query string of an operation, allowing only the given parameters, each at most once. */
function queryParams(search: string, allowed: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const [name, value] of new URLSearchParams(search)) {
    if (!allowed.includes(name)) {
      const accepted = allowed.length === 0 ? 'this operation takes no query parameters' : `accepted: ${allowed.join(', ')}`;
      throw apiError('unknown_parameter', `unknown query parameter ${JSON.stringify(name)} (${accepted})`);
    }
    if (out.has(name)) throw apiError('invalid_parameter', `${name} must be given at most once`);
    out.set(name, value);
  }
  return out;
}

/** The query of GET /pets: limit (default 20) and an optional status. */
export function parseListQuery(search: string): { limit: number; status?: PetStatus } {
  const params = queryParams(search, ['limit', 'status']);
  const limit = params.get('limit');
  const n = limit === undefined ? LIST_LIMIT.default : /^\d{1,6}$/.test(limit) ? Number(limit) : Number.NaN;
  if (!(n >= LIST_LIMIT.min && n <= LIST_LIMIT.max)) {
    throw apiError('invalid_parameter', `limit must be an integer from ${LIST_LIMIT.min} to ${LIST_LIMIT.max}, got ${preview(limit)}`);
  }
  const status = params.get('status');
  if (status !== undefined && !isPetStatus(status)) throw apiError('invalid_parameter', `status must be one of ${STATUS_LIST}, got ${preview(status)}`);
  return { limit: n, status };
}

export function expectNoQuery(search: string): void {
  if (search !== '') queryParams(search, []);
}

/** The petId path segment: an int64 in decimal digits (optional minus sign). */
export function parsePetId(segment: string): bigint {
  let text: string;
  try {
    text = decodeURIComponent(segment);
  } catch {
    text = segment;
  }
  if (/^-?\d{1,25}$/.test(text)) {
    const id = BigInt(text);
    if (id >= INT64_MIN && id <= INT64_MAX) return id;
  }
  throw apiError('invalid_parameter', `petId must be an integer from ${INT64_MIN} to ${INT64_MAX} (int64), got ${preview(text)}`);
}
