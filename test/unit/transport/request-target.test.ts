// A request's URL is built as text from the base URL when the path is plain (issue #18: no URL parsing
// per request in a bulk run). Whatever the base, the text must be what the URL parser gives.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { plainBase, target } from '../../../src/transport/exchange.js';

const parsed = (base: string, path: string) => {
  const u = new URL(base + path);
  return { url: u.toString(), origin: u.origin, path: `${u.pathname}${u.search}` };
};

const bases = [
  'http://127.0.0.1:4010/v1',
  'https://api.example.com/v1',
  'HTTPS://API.Example.COM:443/v1',
  'http://h:80/v1/',
  'http://h',
  'http://h/',
  'http://h/a/../v1',
  'http://h/v1/.',
  'http://h/v%31',
  'http://h/v 1',
  'http://user:pw@h/v1',
  'http://h/v1?x=1',
  'http://h/v1#frag',
  'http://[::1]:8080/v1',
];

describe('request target', () => {
  it('equals the parsed URL for plain paths, for every kind of base', () => {
    const segment = fc.stringMatching(/^[A-Za-z0-9._~-]{1,8}$/);
    fc.assert(
      fc.property(fc.constantFrom(...bases), fc.array(segment, { minLength: 1, maxLength: 3 }), (base, segs) => {
        const path = `/${segs.join('/')}`;
        expect(target(base, plainBase(base), { method: 'GET', path })).toEqual(parsed(base, path));
      }),
      { numRuns: 500 },
    );
  });

  it('uses the text form only when the base allows it, and parses queries', () => {
    expect(plainBase('http://h/v1?x=1')).toBeUndefined();
    expect(plainBase('http://h/v1#f')).toBeUndefined();
    expect(plainBase('not a url')).toBeUndefined();
    expect(target('http://h/v1', plainBase('http://h/v1'), { method: 'GET', path: '/pets', query: { limit: 5, status: undefined } })).toEqual({
      url: 'http://h/v1/pets?limit=5',
      origin: 'http://h',
      path: '/v1/pets?limit=5',
    });
  });
});
