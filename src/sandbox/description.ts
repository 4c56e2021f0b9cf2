// The interface's OpenAPI description, served by the sandbox outside /v1 (no key, no rate limit).

import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { apiError } from './errors.js';

export const OPENAPI_PATH = '/openapi.yaml';
let description: Buffer | undefined;

/** openapi/petstore.yaml of the package, found upward from this module (src/sandbox/ or a dist/ chunk). */
function readDescription(): Buffer {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5 && description === undefined; i++, dir = dirname(dir)) {
    try {
      description = readFileSync(join(dir, 'openapi', 'petstore.yaml'));
    } catch {
      // not here: one folder up
    }
  }
  if (description === undefined) throw new Error('openapi/petstore.yaml is not in the package');
  return description;
}

export function serveDescription(res: ServerResponse, head: boolean): void {
  let body: Buffer;
  try {
    body = readDescription();
  } catch (error) {
    const e = apiError('internal', (error as Error).message);
    res.writeHead(e.status, { 'content-type': 'application/json' }).end(e.body());
    return;
  }
  res.writeHead(200, { 'content-type': 'application/yaml; charset=utf-8', 'content-length': body.length });
  res.end(head ? undefined : body);
}
