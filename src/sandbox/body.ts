// Reading the body of a POST: its declared type, its size limit, its UTF-8, and a client that leaves halfway.

import type { IncomingMessage } from 'node:http';
import { apiError } from './errors.js';

const JSON_TYPE = /^application\/(?:[\w.+-]*\+)?json$/;
const MAX_BYTES = 64 * 1024;
/** A larger body is read to its end (up to this) and refused with the connection kept; beyond, it closes. */
const DRAIN_BYTES = 1024 * 1024;
const UTF8 = new TextDecoder('utf-8', { fatal: true });

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
