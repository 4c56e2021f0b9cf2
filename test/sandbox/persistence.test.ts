import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseJson } from '../../src/json/int64.js';
import { SandboxStartError } from '../../src/sandbox/errors.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/server.js';
import { call, createPet } from './helpers.js';

describe('sandbox --data persistence', () => {
  let dir: string;
  let file: string;
  const open: SandboxHandle[] = [];
  const start = async (options: Parameters<typeof startSandbox>[0] = {}) => {
    const sb = await startSandbox({ keys: ['k'], dataFile: file, perMinute: 100_000, perDay: 100_000, ...options });
    open.push(sb);
    return sb;
  };
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'petstore-sandbox-'));
    file = join(dir, 'pets.json');
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((sb) => sb.close()));
    await rm(dir, { recursive: true, force: true });
  });

  it('creates the file at start, keeps pets across a restart and continues the ids', async () => {
    const first = await start({ firstId: '9007199254740993' });
    expect(first.loadedPets).toBe(0);
    expect(parseJson(await readFile(file, 'utf8'))).toEqual({ version: 1, nextId: 9007199254740993n, pets: [] });
    await createPet(first, { name: 'Rex', categoryId: 1, status: 'sold' });
    await createPet(first, '{"name":"Big","categoryId":9223372036854775807}');
    await first.close();

    const text = await readFile(file, 'utf8');
    expect(text).toContain('{"id":9007199254740993,"name":"Rex","categoryId":1,"status":"sold"}');
    expect(text).toContain('{"id":9007199254740994,"name":"Big","categoryId":9223372036854775807}');
    expect(parseJson(text)).toMatchObject({ version: 1, nextId: 9007199254740995n });

    const second = await start();
    expect(second.loadedPets).toBe(2);
    const got = await call(second, 'GET', '/v1/pets/9007199254740994');
    expect(got.text).toBe('{"id":9007199254740994,"name":"Big","categoryId":9223372036854775807}');
    const next = await createPet(second, { name: 'Next', categoryId: 2 });
    expect(next.text).toContain('"id":9007199254740995');
    await second.close();
    const third = await start();
    expect(third.pets().map((p) => p.id)).toEqual([9007199254740993n, 9007199254740994n, 9007199254740995n]);
  });

  it('writes in the background (debounced) while running, and leaves no temp files', async () => {
    const sb = await start({ persistDelayMs: 10 });
    await createPet(sb, { name: 'Rex', categoryId: 1 });
    const deadline = Date.now() + 2000;
    while (!(await readFile(file, 'utf8')).includes('"Rex"') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(await readFile(file, 'utf8')).toContain('"Rex"');
    await sb.close();
    expect(await readdir(dir)).toEqual(['pets.json']);
    expect(sb.stats().persistWrites).toBeGreaterThanOrEqual(1);
  });

  it('never exposes a half-written file while pets are being created', async () => {
    const sb = await start({ persistDelayMs: 1 });
    let stop = false;
    let reads = 0;
    const reader = (async () => {
      while (!stop) {
        const text = await readFile(file, 'utf8');
        const doc = parseJson(text) as { pets: unknown[] };
        expect(Array.isArray(doc.pets)).toBe(true);
        reads++;
        await new Promise((r) => setImmediate(r));
      }
    })();
    // Keep writing until the reader has seen many versions: a busy machine must not weaken the check.
    let round = 0;
    for (; round < 10 || (reads <= 10 && round < 500); round++) {
      await Promise.all(Array.from({ length: 20 }, (_, i) => createPet(sb, { name: `p${round}-${i}-${'x'.repeat(150)}`, categoryId: i })));
    }
    stop = true;
    await reader;
    await sb.close();
    expect(reads).toBeGreaterThan(10);
    expect((parseJson(await readFile(file, 'utf8')) as { pets: unknown[] }).pets).toHaveLength(20 * round);
  });

  it('refuses to start on a corrupt file and leaves it untouched', async () => {
    for (const content of [
      '{"version":1,"pets":[{"id":1,"name":"Rex"',
      '{"version":2,"pets":[]}',
      '{"version":1,"pets":[{"id":"1","name":"A","categoryId":1}]}',
      '[1,2]',
    ]) {
      await writeFile(file, content);
      const err = await startSandbox({ keys: ['k'], dataFile: file }).then(
        (sb) => {
          open.push(sb);
          return undefined;
        },
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(SandboxStartError);
      expect((err as Error).message).toContain(file);
      expect((err as Error).message).toContain('untouched');
      expect(await readFile(file, 'utf8')).toBe(content);
    }
  });

  it('fails at start when the file cannot be written', async () => {
    const err = await startSandbox({ keys: ['k'], dataFile: join(dir, 'missing-dir', 'pets.json') }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SandboxStartError);
  });

  it('--first-id never lowers the stored next id but may raise it', async () => {
    await writeFile(file, '{"version":1,"nextId":11,"pets":[{"id":10,"name":"Ten","categoryId":1}]}\n');
    const low = await start({ firstId: 3 });
    expect((await createPet(low, { name: 'A', categoryId: 1 })).text).toContain('"id":11,');
    await low.close();
    const high = await start({ firstId: 1000 });
    expect((await createPet(high, { name: 'B', categoryId: 1 })).text).toContain('"id":1000,');
  });

  it('finishes requests in flight on close, then flushes', async () => {
    const sb = await start({ persistDelayMs: 60_000 });
    sb.setLatency(200);
    const inFlight = createPet(sb, { name: 'Late', categoryId: 1 });
    await new Promise((r) => setTimeout(r, 50));
    const closed = sb.close();
    const r = await inFlight;
    expect(r.status).toBe(201);
    await closed;
    expect(await readFile(file, 'utf8')).toContain('"Late"');
    // No longer accepting connections.
    await expect(fetch(`${sb.url}/v1/pets`)).rejects.toThrow();
  });
});
