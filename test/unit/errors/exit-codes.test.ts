import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  AuthError,
  InterruptedError,
  MalformedResponseError,
  NetworkError,
  NotFoundError,
  PartialFailureError,
  RateLimitedError,
  ServerError,
  StdoutClosedError,
  UsageError,
} from '../../../src/errors/errors.js';
import { ExitCode, exitCodeFor } from '../../../src/errors/exit-codes.js';
import type { ApiResponse } from '../../../src/transport/exchange.js';
import { errorForResponse, malformed } from '../../../src/api/errors.js';
import { createIO } from '../../../src/io/io.js';
import { renderError } from '../../../src/output/error.js';

describe('exit codes (public contract)', () => {
  it.each([
    [new ServerError('x'), 1],
    [new MalformedResponseError('x'), 1],
    [new Error('anything else'), 1],
    ['a string', 1],
    [new UsageError('x'), 2],
    [new PartialFailureError('x'), 3],
    [new AuthError('x'), 4],
    [new NotFoundError('x'), 5],
    [new RateLimitedError('x'), 6],
    [new NetworkError('x'), 7],
    [new InterruptedError(), 130],
  ])('%s -> %i', (error, code) => {
    expect(exitCodeFor(error)).toBe(code);
  });

  it('a stdout whose reader exited before a bulk run ended -> 141 (128 + SIGPIPE)', () => {
    expect(exitCodeFor(new StdoutClosedError('x'))).toBe(141);
    expect(ExitCode.stdoutClosed).toBe(141);
  });

  it('has the documented values', () => {
    expect(ExitCode).toMatchObject({ ok: 0, failure: 1, usage: 2, partial: 3, auth: 4, notFound: 5, rateLimited: 6, network: 7, interrupted: 130 });
  });
});

function response(status: number, body: string, contentType = 'application/json'): ApiResponse {
  let json: unknown;
  let isJson = false;
  try {
    json = JSON.parse(body);
    isJson = true;
  } catch {
    // not JSON
  }
  return { status, headers: { 'content-type': contentType }, text: body, json, isJson, quota: undefined };
}

describe('HTTP status -> error -> exit code', () => {
  const err = (status: number) => JSON.stringify({ code: `c${status}`, message: `m${status}`, status });
  it.each([
    [400, 2],
    [401, 4],
    [403, 4],
    [404, 5],
    [429, 6],
    [500, 1],
    [502, 1],
    [503, 1],
  ])('%i -> exit %i, with message, code and status in one line', (status, code) => {
    const e = errorForResponse(response(status, err(status)), { envName: 'staging' });
    expect(exitCodeFor(e)).toBe(code);
    expect(e.message).toContain(`m${status} (c${status}, HTTP ${status})`);
  });

  it('adds the login hint on 401', () => {
    expect(errorForResponse(response(401, err(401)), { envName: 'staging' }).hint).toBe('petstore auth login --env staging');
  });

  it('reports an HTML error page as a non-JSON body with its status', () => {
    const e = errorForResponse(response(502, '<html>Bad Gateway</html>', 'text/html'), { envName: 'p' });
    expect(e.message).toBe('server error: HTTP 502 with a non-JSON body (text/html)');
  });

  it('reports a 2xx of the wrong shape as malformed (exit 1)', () => {
    const e = malformed(response(200, '{}'), 'a list of pets');
    expect(e.message).toBe('malformed response: expected a list of pets, got JSON of the wrong shape (HTTP 200)');
    expect(exitCodeFor(e)).toBe(1);
  });
});

function io() {
  const stderr = new PassThrough();
  let text = '';
  stderr.on('data', (c: Buffer) => (text += c.toString()));
  return { io: createIO({ stdout: new PassThrough(), stderr, stdin: new PassThrough(), env: {} }), text: () => text };
}

describe('renderError', () => {
  it('prints one line with the hint and no stack trace', () => {
    const o = io();
    renderError(o.io, new AuthError('authentication failed: bad key (unauthorized, HTTP 401)', { hint: 'petstore auth login --env production' }), {
      debug: false,
      json: false,
    });
    expect(o.text()).toBe('error: authentication failed: bad key (unauthorized, HTTP 401); run: petstore auth login --env production\n');
  });

  it('adds one JSON object with -o json', () => {
    const o = io();
    renderError(o.io, new NotFoundError('not found: x', { status: 404, code: 'not_found' }), { debug: false, json: true });
    const [line, json] = o.text().trim().split('\n');
    expect(line).toBe('error: not found: x');
    expect(JSON.parse(json!)).toEqual({ error: { code: 'not_found', message: 'not found: x', status: 404, exitCode: 5 } });
  });

  it('shows stack traces only with --debug, and hides unexpected errors behind one line', () => {
    const o = io();
    renderError(o.io, new TypeError('boom'), { debug: false, json: false });
    expect(o.text()).toBe('error: unexpected error: boom\n');
    const d = io();
    renderError(d.io, new TypeError('boom'), { debug: true, json: false });
    expect(d.text()).toMatch(/\n\s+at /);
  });

  it('keeps a server message on one line and escapes control characters', () => {
    const o = io();
    renderError(o.io, new ServerError('server error: two\nlines \u001b[31mred'), { debug: false, json: false });
    expect(o.text()).toBe('error: server error: two lines \\x1b[31mred\n');
  });
});
