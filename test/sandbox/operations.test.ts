import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/server.js';
import { call, createPet, errorBody } from './helpers.js';

describe('sandbox operations', () => {
  let sb: SandboxHandle;
  beforeAll(async () => {
    sb = await startSandbox({ keys: ['test-key'], perMinute: 100_000, perDay: 100_000 });
  });
  afterAll(async () => {
    await sb.close();
  });

  it('listens on 127.0.0.1 on an ephemeral port and exposes the /v1 base URL', () => {
    expect(sb.host).toBe('127.0.0.1');
    expect(sb.port).toBeGreaterThan(0);
    expect(sb.url).toBe(`http://127.0.0.1:${sb.port}`);
    expect(sb.baseUrl).toBe(`${sb.url}/v1`);
    expect(sb.keys).toEqual(['test-key']);
    expect(sb.generatedKey).toBe(false);
  });

  it('lists no pets at first', async () => {
    const r = await call(sb, 'GET', '/v1/pets');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json');
    expect(r.text).toBe('[]');
  });

  it('POST /pets creates a pet: 201, Pet body with a new id, Location', async () => {
    const r = await createPet(sb, { name: 'Rex', categoryId: 3, status: 'available' });
    expect(r.status).toBe(201);
    expect(r.text).toBe('{"id":1,"name":"Rex","categoryId":3,"status":"available"}');
    expect(r.headers.get('location')).toBe('/v1/pets/1');
    const r2 = await createPet(sb, { name: 'Tom', categoryId: 4 });
    expect(r2.status).toBe(201);
    // No default status: the field is absent when it was not given.
    expect(r2.text).toBe('{"id":2,"name":"Tom","categoryId":4}');
    expect(sb.pets()).toEqual([
      { id: 1n, name: 'Rex', categoryId: 3n, status: 'available' },
      { id: 2n, name: 'Tom', categoryId: 4n },
    ]);
  });

  it('GET /pets/{petId} returns the pet with Deprecation and Sunset headers', async () => {
    const r = await call(sb, 'GET', '/v1/pets/1');
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ id: 1, name: 'Rex', categoryId: 3, status: 'available' });
    expect(r.headers.get('deprecation')).toBe('true');
    expect(r.headers.get('sunset')).toBe('Thu, 05 Dec 2030 00:00:00 GMT');
  });

  it('GET /pets/{petId} answers 404 not_found for an unknown id, still deprecated', async () => {
    const r = await call(sb, 'GET', '/v1/pets/999');
    expect(r.status).toBe(404);
    expect(errorBody(r)).toMatchObject({ code: 'not_found', status: 404 });
    expect(errorBody(r).message).toContain('999');
    expect(r.headers.get('sunset')).toBe('Thu, 05 Dec 2030 00:00:00 GMT');
  });

  it('GET /pets has no Deprecation header', async () => {
    const r = await call(sb, 'GET', '/v1/pets');
    expect(r.headers.get('deprecation')).toBeNull();
    expect(r.headers.get('sunset')).toBeNull();
  });

  it('accepts a POST without Content-Type and with a charset parameter', async () => {
    const bytes = new TextEncoder().encode('{"name":"Bare","categoryId":1}');
    const r = await call(sb, 'POST', '/v1/pets', { body: bytes });
    expect(r.status).toBe(201);
    const r2 = await call(sb, 'POST', '/v1/pets', {
      body: '{"name":"Charset","categoryId":1}',
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(r2.status).toBe(201);
  });

  describe('listing', () => {
    let list: SandboxHandle;
    beforeAll(async () => {
      list = await startSandbox({ keys: ['k'], perMinute: 100_000, perDay: 100_000 });
      const statuses = ['available', 'pending', 'sold', undefined] as const;
      list.seed(Array.from({ length: 130 }, (_, i) => ({ name: `pet-${i + 1}`, categoryId: i % 5, ...(statuses[i % 4] ? { status: statuses[i % 4] } : {}) })));
    });
    afterAll(async () => {
      await list.close();
    });

    it('returns 20 pets by default, in ascending id order', async () => {
      const r = await call(list, 'GET', '/v1/pets');
      const pets = r.json as Array<{ id: number }>;
      expect(r.status).toBe(200);
      expect(pets).toHaveLength(20);
      expect(pets.map((p) => p.id)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    });

    it('honours limit from 1 to 100', async () => {
      for (const limit of [1, 7, 100]) {
        const r = await call(list, 'GET', `/v1/pets?limit=${limit}`);
        expect(r.status).toBe(200);
        expect(r.json).toHaveLength(limit);
      }
    });

    it('filters by status', async () => {
      const r = await call(list, 'GET', '/v1/pets?status=pending&limit=100');
      const pets = r.json as Array<{ id: number; status: string }>;
      expect(pets).toHaveLength(33);
      expect(pets.every((p) => p.status === 'pending')).toBe(true);
      expect(pets[0]?.id).toBe(2);
      const sold = await call(list, 'GET', '/v1/pets?status=sold&limit=3');
      expect((sold.json as Array<{ id: number }>).map((p) => p.id)).toEqual([3, 7, 11]);
    });
  });

  it('answers 501 with an Error body for paths the document only names', async () => {
    for (const path of ['/v1/store/orders', '/v1/store/orders/5', '/v1/categories']) {
      const r = await call(sb, 'GET', path);
      expect(r.status).toBe(501);
      expect(errorBody(r).code).toBe('not_implemented');
    }
    // Still behind authentication.
    const anon = await call(sb, 'GET', '/v1/store/orders', { key: null });
    expect(anon.status).toBe(401);
  });

  it('answers 404 unknown_path for unknown paths, with or without a key', async () => {
    for (const path of ['/', '/pets', '/v2/pets', '/v1/pets/1/photos', '/v1/pets/', '/v1/petsx']) {
      const r = await call(sb, 'GET', path);
      expect(r.status, path).toBe(404);
      expect(errorBody(r).code).toBe('unknown_path');
      const anon = await call(sb, 'GET', path, { key: null });
      expect(anon.status, path).toBe(404);
    }
  });

  it('answers 405 with Allow for wrong methods', async () => {
    for (const [method, path, allow] of [
      ['DELETE', '/v1/pets', 'GET, POST'],
      ['PUT', '/v1/pets', 'GET, POST'],
      ['POST', '/v1/pets/1', 'GET'],
      ['DELETE', '/v1/pets/1', 'GET'],
      ['PATCH', '/v1/pets/1', 'GET'],
    ] as const) {
      const r = await call(sb, method, path);
      expect(r.status, `${method} ${path}`).toBe(405);
      expect(r.headers.get('allow')).toBe(allow);
      expect(errorBody(r).code).toBe('method_not_allowed');
      expect(errorBody(r).message).toContain(method);
    }
  });

  it('records what it received, authorization included', async () => {
    sb.clearRequests();
    await createPet(sb, { name: 'Recorded', categoryId: 9 }, { headers: { 'x-request-id': 'abc' } });
    await call(sb, 'GET', '/v1/pets?limit=2&status=sold');
    const [post, list] = sb.requests();
    expect(post).toMatchObject({
      method: 'POST',
      path: '/v1/pets',
      url: '/v1/pets',
      key: 'test-key',
      body: '{"name":"Recorded","categoryId":9}',
      status: 201,
      errorCode: undefined,
    });
    expect(post?.headers.authorization).toBe('Bearer test-key');
    expect(post?.headers['x-request-id']).toBe('abc');
    expect(post?.headers['content-type']).toBe('application/json');
    expect(post?.responseBody).toContain('"name":"Recorded"');
    expect(list).toMatchObject({ method: 'GET', path: '/v1/pets', query: { limit: '2', status: 'sold' }, status: 200 });
    expect(list?.responseHeaders['x-ratelimit-limit']).toBeDefined();
    expect(list!.seq).toBe(post!.seq + 1);
    expect(typeof list?.time).toBe('number');
  });

  it('failNext injects failures before auth and limits', async () => {
    sb.failNext({ count: 2, status: 503, retryAfter: 2 });
    const a = await call(sb, 'GET', '/v1/pets');
    const b = await call(sb, 'GET', '/v1/pets');
    const c = await call(sb, 'GET', '/v1/pets');
    expect([a.status, b.status, c.status]).toEqual([503, 503, 200]);
    expect(errorBody(a).code).toBe('injected_failure');
    expect(a.headers.get('retry-after')).toBe('2');
  });

  it('setLatency delays answers', async () => {
    sb.setLatency(150);
    const t0 = performance.now();
    await call(sb, 'GET', '/v1/pets');
    expect(performance.now() - t0).toBeGreaterThanOrEqual(140);
    sb.setLatency(0);
  });
});
