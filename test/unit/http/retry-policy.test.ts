import { describe, expect, it } from 'vitest';
import { MalformedResponseError } from '../../../src/errors/errors.js';
import { CONNECT_TIMED_OUT, describeTransportError, notSentFailure, TransportError } from '../../../src/transport/errors.js';
import { retryVerdict } from '../../../src/http/retry-policy.js';
import { isSafeMethod } from '../../../src/transport/exchange.js';

function transport(code: string | undefined, sent: boolean, timedOut = false): TransportError {
  const cause = code ? Object.assign(new Error(code), { code }) : new Error('boom');
  return new TransportError(`failed (${code})`, sent, timedOut, cause);
}

const refused = () => transport('ECONNREFUSED', false);
const connectTimeout = () => transport('UND_ERR_CONNECT_TIMEOUT', false);
const reset = () => transport('ECONNRESET', true);
const socketClosed = () => transport('UND_ERR_SOCKET', true);
const timeout = () => transport(undefined, true, true);
const dns = () => transport('ENOTFOUND', false);
const dnsAgain = () => transport('EAI_AGAIN', false);
const tls = () => transport('CERT_HAS_EXPIRED', false);

describe('retry table by status', () => {
  it.each([
    [200, 'return', 'return'],
    [201, 'return', 'return'],
    [400, 'return', 'return'],
    [401, 'return', 'return'],
    [403, 'return', 'return'],
    [404, 'return', 'return'],
    [429, 'retry:rate_limit', 'retry:rate_limit'],
    [500, 'return', 'return'],
    [501, 'return', 'return'],
    [502, 'retry:backoff', 'return'],
    [503, 'retry:backoff', 'return'],
    [504, 'retry:backoff', 'return'],
  ])('HTTP %d: GET %s, POST %s', (status, get, post) => {
    const show = (v: ReturnType<typeof retryVerdict>) => (v.action === 'retry' ? `retry:${v.wait}` : v.action);
    expect(show(retryVerdict('GET', { status }))).toBe(get);
    expect(show(retryVerdict('POST', { status }))).toBe(post);
  });
});

describe('retry table by transport error', () => {
  it.each([
    ['refused', refused, 'retry', 'retry'],
    ['connect timeout (nothing sent)', connectTimeout, 'retry', 'retry'],
    ['DNS try again', dnsAgain, 'retry', 'retry'],
    ['reset after sending', reset, 'retry', 'unknown'],
    ['socket closed after sending', socketClosed, 'retry', 'unknown'],
    ['response timeout', timeout, 'retry', 'unknown'],
    ['DNS name not found', dns, 'throw', 'throw'],
    ['TLS certificate', tls, 'throw', 'throw'],
  ])('%s: GET %s, POST %s', (_name, make, get, post) => {
    expect(retryVerdict('GET', { error: make() }).action).toBe(get);
    expect(retryVerdict('POST', { error: make() }).action).toBe(post);
  });

  it('errors that are not transport faults are rethrown', () => {
    expect(retryVerdict('GET', { error: new MalformedResponseError('too big') }).action).toBe('throw');
    expect(retryVerdict('POST', { error: new Error('bug') }).action).toBe('throw');
  });

  it('a timeout is never retried for POST, even if flagged as not sent', () => {
    expect(retryVerdict('POST', { error: transport('ECONNREFUSED', false, true) }).action).toBe('unknown');
  });
});

describe('methods', () => {
  it('GET, HEAD and OPTIONS are safe; POST, PUT, PATCH, DELETE follow the POST rules', () => {
    expect(['GET', 'HEAD', 'OPTIONS', 'get'].map(isSafeMethod)).toEqual([true, true, true, true]);
    expect(['POST', 'PUT', 'PATCH', 'DELETE'].map(isSafeMethod)).toEqual([false, false, false, false]);
    expect(retryVerdict('DELETE', { status: 503 }).action).toBe('return');
    expect(retryVerdict('PUT', { error: reset() }).action).toBe('unknown');
  });
});

describe('one list of "surely not sent" failures for both engines', () => {
  // The node:http engine's connect timeout was missing from the retry policy's own list, so a
  // POST that never left was retried on undici and given up on node:http.
  it.each([
    ['UND_ERR_CONNECT_TIMEOUT', 'undici'],
    [CONNECT_TIMED_OUT, 'node:http'],
  ])('a connect timeout (%s, %s) on a POST is retried', (code) => {
    const error = new TransportError('could not connect', notSentFailure(code) === undefined, false, Object.assign(new Error('x'), { code }));
    expect(error.sent).toBe(false);
    expect(retryVerdict('POST', { error })).toEqual({ action: 'retry', wait: 'backoff' });
  });

  it('what the message says (sent or not) and what the policy does agree for every listed code', () => {
    for (const code of ['ECONNREFUSED', 'UND_ERR_CONNECT_TIMEOUT', CONNECT_TIMED_OUT, 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH', 'ENOTFOUND']) {
      const cause = Object.assign(new Error(code), { code });
      const { sent } = describeTransportError(cause, 'http://127.0.0.1:9/v1/pets', undefined);
      expect(sent, code).toBe(false);
      const verdict = retryVerdict('POST', { error: new TransportError('x', sent, false, cause) });
      expect(verdict.action, code).toBe(notSentFailure(code) === 'transient' ? 'retry' : 'throw');
    }
  });
});
