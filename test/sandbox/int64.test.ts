import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/server.js';
import { call, createPet, errorBody } from './helpers.js';

describe('sandbox int64', () => {
  let sb: SandboxHandle | undefined;
  afterEach(async () => {
    await sb?.close();
    sb = undefined;
  });

  it('--first-id 9007199254740993 hands out exactly that id and then the next', async () => {
    sb = await startSandbox({ keys: ['k'], firstId: '9007199254740993' });
    const a = await createPet(sb, { name: 'A', categoryId: 1 });
    const b = await createPet(sb, { name: 'B', categoryId: 1 });
    expect(a.text).toBe('{"id":9007199254740993,"name":"A","categoryId":1}');
    expect(b.text).toBe('{"id":9007199254740994,"name":"B","categoryId":1}');
    expect(a.headers.get('location')).toBe('/v1/pets/9007199254740993');
    expect(sb.pets().map((p) => p.id)).toEqual([9007199254740993n, 9007199254740994n]);

    const got = await call(sb, 'GET', '/v1/pets/9007199254740993');
    expect(got.status).toBe(200);
    expect(got.text).toBe('{"id":9007199254740993,"name":"A","categoryId":1}');
    const list = await call(sb, 'GET', '/v1/pets');
    expect(list.text).toBe('[{"id":9007199254740993,"name":"A","categoryId":1},{"id":9007199254740994,"name":"B","categoryId":1}]');
    // A neighbour that a float would round to is a different pet.
    expect((await call(sb, 'GET', '/v1/pets/9007199254740992')).status).toBe(404);
  });

  it('keeps categoryIds above 2^53 and at the int64 limits exact, end to end', async () => {
    sb = await startSandbox({ keys: ['k'] });
    const ids = ['9007199254740993', '9223372036854775807', '-9223372036854775808', '12345678901234567'];
    for (const cid of ids) {
      const r = await createPet(sb, `{"name":"big","categoryId":${cid}}`);
      expect(r.status).toBe(201);
      expect(r.text).toContain(`"categoryId":${cid}}`);
      const id = (r.json as { id: number }).id;
      const got = await call(sb, 'GET', `/v1/pets/${id}`);
      expect(got.text).toContain(`"categoryId":${cid}}`);
    }
    const list = await call(sb, 'GET', '/v1/pets');
    for (const cid of ids) expect(list.text).toContain(`"categoryId":${cid}}`);
    expect(sb.pets().map((p) => p.categoryId)).toEqual(ids.map((s) => BigInt(s)));
  });

  it('runs out of ids cleanly at the int64 maximum', async () => {
    sb = await startSandbox({ keys: ['k'], firstId: 9223372036854775807n });
    const last = await createPet(sb, { name: 'Last', categoryId: 1 });
    expect(last.text).toBe('{"id":9223372036854775807,"name":"Last","categoryId":1}');
    const none = await createPet(sb, { name: 'None', categoryId: 1 });
    expect(none.status).toBe(507);
    expect(errorBody(none).code).toBe('ids_exhausted');
    expect(sb.pets()).toHaveLength(1);
  });
});
