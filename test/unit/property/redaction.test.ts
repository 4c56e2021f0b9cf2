// Property: an error line never carries a key, whatever the server put in its
// message: "Bearer <token>" is masked in server messages (src/api/errors.ts),
// and renderError (src/output/error.ts) masks the keys it is given in the message,
// the hint, the JSON object and --debug stack traces.
import { PassThrough, Writable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AuthError, ServerError } from '../../../src/errors/errors.js';
import type { ApiResponse } from '../../../src/transport/exchange.js';
import { describeResponse, errorForResponse } from '../../../src/api/errors.js';
import { createIO } from '../../../src/io/io.js';
import { renderError } from '../../../src/output/error.js';

const RUNS = 300;

/** Key-like: what `auth login` accepts (ASCII, no spaces), long enough to be masked to its last 4. */
const key = fc.stringMatching(/^[A-Za-z0-9_-]{12,48}$/);
const text = fc.string({ maxLength: 40 });

/** stderr recorded synchronously. */
function capture() {
  let out = '';
  const stderr = new Writable({
    write(chunk: Buffer, _enc, done) {
      out += chunk.toString('utf8');
      done();
    },
  });
  const io = createIO({ stdout: new PassThrough(), stderr, stdin: new PassThrough(), env: {} });
  return { io, text: () => out };
}

function response(status: number, message: string): ApiResponse {
  const body = { code: 'unauthorized', message, status };
  return {
    status,
    headers: { 'content-type': 'application/json' },
    text: JSON.stringify(body),
    json: body,
    isJson: true,
    quota: undefined,
  } as ApiResponse;
}

describe('keys in error output (property)', () => {
  it(`a server message echoing "Bearer <key>" is printed with the token masked (${RUNS} runs)`, () => {
    fc.assert(
      fc.property(
        key,
        text,
        text,
        fc.constantFrom('Bearer', 'bearer', 'BEARER', 'Basic'),
        fc.constantFrom(401, 403, 500, 400),
        (k, before, after, scheme, status) => {
          const res = response(status, `${before} ${scheme} ${k} ${after}`);
          expect(describeResponse(res).message).not.toContain(k);
          expect(errorForResponse(res, { envName: 'production' }).message).not.toContain(k);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it(`renderError never prints a secret it is given: message, hint, JSON, stack and causes (${RUNS} runs)`, () => {
    fc.assert(
      fc.property(key, text, text, fc.boolean(), fc.boolean(), fc.boolean(), (k, before, after, json, debug, auth) => {
        const c = capture();
        const cause = new Error(`socket said ${k}`);
        const error = auth
          ? new AuthError(`${before}${k}${after}`, { hint: `petstore auth login # ${k}`, cause })
          : new ServerError(`${before}${k}${after}`, { cause });
        renderError(c.io, error, { debug, json, secrets: [k] });
        const out = c.text();
        expect(out).not.toContain(k);
        expect(out).toMatch(/^error: /);
        expect(out).toContain(`****${k.slice(-4)}`);
        if (json) expect(JSON.parse(out.split('\n')[1]!).error.message).not.toContain(k);
      }),
      { numRuns: RUNS },
    );
  });

  it('an unexpected (non-CLI) error is scrubbed too', () => {
    const c = capture();
    renderError(c.io, new TypeError('bad header value sk_live_abcdefghijklmnop'), { debug: true, json: true, secrets: ['sk_live_abcdefghijklmnop'] });
    expect(c.text()).not.toContain('sk_live_abcdefghijklmnop');
    expect(c.text()).toContain('****mnop');
  });
});
