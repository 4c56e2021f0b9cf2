// Reading the body of a POST: its declared type, its size limit, and a client that leaves halfway.

import type { IncomingMessage } from 'node:http';
import { apiError } from './errors.js';

const JSON_TYPE = /^application\/(?:[\w.+-]*\+)?json$/;

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

function tooLarge(maxBytes: number, close: boolean) {
  return apiError('payload_too_large', `request body is larger than ${maxBytes} bytes`, close ? { connection: 'close' } : undefined);
}

/**
 * The whole body, at most `maxBytes`. A larger one is read to its end and refused with a 413 (the
 * connection stays usable); past `drainBytes` it is refused at once and the connection closed.
 * Rejects with ClientGone when the client leaves before the end.
 */
export function readBody(req: IncomingMessage, maxBytes: number, drainBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    if (req.destroyed) throw new ClientGone();
    const declared = Number(req.headers['content-length']);
    if (declared > drainBytes) throw tooLarge(maxBytes, true);
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > drainBytes) {
        req.pause();
        reject(tooLarge(maxBytes, true));
      } else if (size <= maxBytes && !(declared > maxBytes)) chunks.push(chunk);
    });
    req.on('end', () => {
      if (size > maxBytes || declared > maxBytes) reject(tooLarge(maxBytes, false));
      else resolve(Buffer.concat(chunks, size));
    });
    req.on('close', () => {
      if (!req.complete) reject(new ClientGone());
    });
  });
}
