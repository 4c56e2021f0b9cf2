import { describe, expect, it } from 'vitest';
import { checkJsonBody, parseHeaders, resolveApiPath } from '../../../src/commands/api/api.js';
import { parseMethod } from '../../../src/flag-values.js';
import { UsageError } from '../../../src/errors/errors.js';

const BASE = 'https://api.example.com/v1';

function refused(fn: () => unknown): UsageError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return error as UsageError;
  }
  throw new Error('expected a UsageError');
}

describe('resolveApiPath', () => {
  it.each([
    ['/store/orders', '/store/orders'],
    ['store/orders', '/store/orders'],
    ['/pets?status=sold&status=pending&limit=5', '/pets?status=sold&status=pending&limit=5'],
    ['/pets?name=a%20b', '/pets?name=a%20b'],
    ['/pets#fragment', '/pets'],
    ['/', '/'],
    ['https://api.example.com/v1/pets?limit=1', '/pets?limit=1'],
    ['https://api.example.com/v1', ''],
    ['https://API.example.com:443/v1/pets', '/pets'],
    ['https://api.example.com/v1/v1/pets', '/v1/pets'],
  ])('%s -> %s below the base', (input, path) => {
    expect(resolveApiPath(input, BASE)).toEqual({ path, note: undefined });
  });

  it('drops a repeated /v1 prefix with a note', () => {
    const r = resolveApiPath('/v1/pets?limit=2', BASE);
    expect(r.path).toBe('/pets?limit=2');
    expect(r.note).toMatch(/already ends in \/v1; sending \/v1\/pets as \/pets/);
    expect(resolveApiPath('/v1', BASE).path).toBe('/');
    expect(resolveApiPath('/v1?x=1', BASE).path).toBe('/?x=1');
    // Not a prefix: "/v10" is a different segment.
    expect(resolveApiPath('/v10/x', BASE)).toEqual({ path: '/v10/x', note: undefined });
  });

  it('treats every path as relative when the base URL has no path', () => {
    expect(resolveApiPath('/v1/pets', 'http://127.0.0.1:8080')).toEqual({ path: '/v1/pets', note: undefined });
    expect(resolveApiPath('http://127.0.0.1:8080/anything', 'http://127.0.0.1:8080').path).toBe('/anything');
  });

  it.each([
    ['https://evil.example.com/v1/pets', /refusing to send the API key of environment "prod" to https:\/\/evil\.example\.com/],
    ['http://api.example.com/v1/pets', /to http:\/\/api\.example\.com/],
    ['https://api.example.com:8443/v1/pets', /to https:\/\/api\.example\.com:8443/],
    ['//evil.example.com/v1/pets', /to https:\/\/evil\.example\.com/],
    ['https://api.example.com/v2/pets', /not under the base URL https:\/\/api\.example\.com\/v1/],
    ['https://api.example.com/v1x', /not under the base URL/],
    ['https://api.example.com/v1/../admin', /not under the base URL/],
    ['https://user:pw@api.example.com/v1/pets', /must not contain credentials/],
    ['ftp://api.example.com/v1/pets', /refusing to send the API key/],
    ['/../admin', /outside the base URL/],
    ['/pets/%2e%2e/%2e%2e/admin', /outside the base URL/],
    ['/pets/..\\..\\admin', /outside the base URL/],
  ])('refuses %s', (input, message) => {
    expect(refused(() => resolveApiPath(input, BASE, 'prod')).message).toMatch(message);
  });

  it('never lets a relative path change the host', () => {
    for (const input of ['@evil.example.com/x', '/@evil.example.com', '\\\\evil.example.com/x', '/\\evil.example.com']) {
      const { path } = resolveApiPath(input, 'https://api.example.com');
      expect(new URL(`https://api.example.com${path}`).host).toBe('api.example.com');
    }
  });
});

describe('parseMethod', () => {
  it('accepts the seven methods in any case', () => {
    expect(parseMethod('get')).toBe('GET');
    expect(parseMethod('Patch')).toBe('PATCH');
    expect(parseMethod('OPTIONS')).toBe('OPTIONS');
  });
  it('names the allowed values', () => {
    expect(refused(() => parseMethod('TRACE')).message).toBe('invalid -X/--method "TRACE": must be one of GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS');
  });
});

describe('parseHeaders', () => {
  it('lower-cases names, trims values and joins repeats', () => {
    expect(parseHeaders(['X-Request-Id: 42', 'Accept:text/plain', 'x-request-id:  43 ', 'X-Empty:'])).toEqual({
      'x-request-id': '42, 43',
      accept: 'text/plain',
      'x-empty': '',
    });
  });

  it.each([
    'Authorization: Bearer sk_live_secret',
    'authorization:x',
    'HOST: evil.example.com',
    'Proxy-Authorization: Basic abc',
    'Content-Length: 1',
    'Transfer-Encoding: chunked',
  ])('refuses %s without echoing the value', (header) => {
    const e = refused(() => parseHeaders([header]));
    expect(e.message).toMatch(/^refusing -H\/--header "[A-Za-z-]+": /);
    expect(e.message).not.toContain(header.slice(header.indexOf(':') + 1).trim());
  });

  it('refuses malformed headers without echoing them', () => {
    expect(refused(() => parseHeaders(['Bearer sk_live_secret'])).message).not.toContain('secret');
    expect(refused(() => parseHeaders([': value'])).message).toMatch(/expected 'Name: value'/);
    expect(refused(() => parseHeaders(['Bad Name: v'])).message).toMatch(/invalid -H\/--header name "Bad Name"/);
    expect(refused(() => parseHeaders(['X-A: one\r\nX-B: two'])).message).toMatch(/line breaks/);
  });
});

describe('checkJsonBody', () => {
  it("returns the text unchanged (exact digits, the user's formatting), without a BOM", () => {
    const text = '{ "categoryId": 9007199254740993,\n  "name": "Rex" }\n';
    expect(checkJsonBody(text, '-d')).toBe(text);
    expect(checkJsonBody(`\uFEFF${text}`, '-d')).toBe(text);
  });
  it('refuses empty text and invalid JSON, naming the source', () => {
    expect(refused(() => checkJsonBody('  \n', '-d/--data')).message).toBe('-d/--data is empty: expected a JSON request body');
    expect(refused(() => checkJsonBody('{name: Rex}', '--input file "a.json"')).message).toMatch(/^--input file "a\.json" is not valid JSON: /);
  });
});
