import { spawnSync } from 'node:child_process';
import { chmod, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SandboxStartError } from '../../src/sandbox/errors.js';
import { loadData } from '../../src/sandbox/store.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/server.js';
import { mountTiny, unmountTiny } from '../helpers/tiny-fs.js';
import { missingTool } from '../helpers/tools.js';
import { call, createPet, type CallResult } from './helpers.js';

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
    expect(await readFile(file, 'utf8')).toBe('{"petstore-sandbox-data":2,"nextId":9007199254740993}\n');
    await createPet(first, { name: 'Rex', categoryId: 1, status: 'sold' });
    await createPet(first, '{"name":"Big","categoryId":9223372036854775807}');
    await first.close();

    const text = await readFile(file, 'utf8');
    expect(text).toContain('{"id":9007199254740993,"name":"Rex","categoryId":1,"status":"sold"}');
    expect(text).toContain('{"id":9007199254740994,"name":"Big","categoryId":9223372036854775807}');
    expect(await loadData(file)).toMatchObject({ nextId: 9007199254740995n });

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

  it('a 201 goes out only once its line is in the file; nothing but the data file is left', async () => {
    const sb = await start();
    const r = await createPet(sb, { name: 'Rex', categoryId: 1 });
    expect(r.status).toBe(201);
    // Read at once, the sandbox still running: the acknowledged pet is in the file.
    expect((await loadData(file))?.pets.map((p) => p.name)).toEqual(['Rex']);
    await sb.close();
    expect(await readdir(dir)).toEqual(['pets.json']);
    expect(sb.stats().persistWrites).toBeGreaterThanOrEqual(1);
    expect(await readFile(file, 'utf8')).toBe('{"petstore-sandbox-data":2,"nextId":1}\n{"id":1,"name":"Rex","categoryId":1}\n');
  });

  it('zeros after the lines (blocks a machine crash can leave) are where the lines end', async () => {
    await writeFile(file, `{"petstore-sandbox-data":2,"nextId":1}\n{"id":1,"name":"Rex","categoryId":1}\n{"id":2,"na${'\0'.repeat(4096)}`);
    const sb = await start();
    expect(sb.pets().map((p) => p.name)).toEqual(['Rex']);
    expect(await readFile(file, 'utf8')).toBe('{"petstore-sandbox-data":2,"nextId":2}\n{"id":1,"name":"Rex","categoryId":1}\n');
  });

  it('a last line cut short (the process died writing it) is dropped; the file is rewritten whole at start', async () => {
    await writeFile(file, '{"petstore-sandbox-data":2,"nextId":1}\n{"id":1,"name":"Rex","categoryId":1}\n{"id":2,"name":"Hal');
    const sb = await start();
    expect(sb.pets().map((p) => p.name)).toEqual(['Rex']);
    expect(await readFile(file, 'utf8')).toBe('{"petstore-sandbox-data":2,"nextId":2}\n{"id":1,"name":"Rex","categoryId":1}\n');
    // Id 2 was never acknowledged: it may be handed out.
    expect((await createPet(sb, { name: 'Two', categoryId: 1 })).text).toContain('"id":2,');
  });

  it("an earlier version's file (format 1) is read and rewritten in the log format", async () => {
    await writeFile(file, '{"version":1,"nextId":11,"pets":[\n{"id":10,"name":"Ten","categoryId":1}\n]}\n');
    const sb = await start();
    expect(sb.pets().map((p) => p.id)).toEqual([10n]);
    expect(await readFile(file, 'utf8')).toBe('{"petstore-sandbox-data":2,"nextId":11}\n{"id":10,"name":"Ten","categoryId":1}\n');
  });

  it("temp files of a run killed while rewriting the file are removed at start; a live process's are not", async () => {
    const dead = spawnSync(process.execPath, ['-e', '0']).pid;
    await writeFile(`${file}.tmp-${dead}`, 'debris');
    await writeFile(`${file}.tmp-1`, 'pid 1 runs');
    await start();
    expect((await readdir(dir)).sort()).toEqual(['pets.json', 'pets.json.tmp-1']);
  });

  it('an existing file keeps its mode when rewritten', async () => {
    await writeFile(file, '{"petstore-sandbox-data":2,"nextId":1}\n', { mode: 0o640 });
    await chmod(file, 0o640);
    await start();
    expect((await stat(file)).mode & 0o777).toBe(0o640);
  });

  it('many appends are compacted: the file stays about as large as its pets', async () => {
    const sb = await start();
    for (let round = 0; round < 30; round++) await Promise.all(Array.from({ length: 50 }, (_, i) => createPet(sb, { name: `c${round}-${i}`, categoryId: 1 })));
    await sb.close();
    const text = await readFile(file, 'utf8');
    expect(text.startsWith('{"petstore-sandbox-data":2,"nextId":')).toBe(true);
    expect(text.split('\n').filter(Boolean)).toHaveLength(1 + 1500);
    expect((await loadData(file))?.pets).toHaveLength(1500);
  });

  it('never exposes a file that does not load while pets are being created', async () => {
    const sb = await start();
    let stop = false;
    let reads = 0;
    const reader = (async () => {
      while (!stop) {
        const doc = await loadData(file);
        expect(Array.isArray(doc?.pets)).toBe(true);
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
    expect((await loadData(file))?.pets).toHaveLength(20 * round);
  });

  it('refuses to start on a corrupt file and leaves it untouched', async () => {
    for (const content of [
      '{"version":1,"pets":[{"id":1,"name":"Rex"',
      '{"version":2,"pets":[]}',
      '{"petstore-sandbox-data":3,"nextId":1}\n',
      '{"petstore-sandbox-data":2,"nextId":1}\n{"id":1,"name":"A"\n{"id":2,"name":"B","categoryId":1}\n',
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

  it('finishes requests in flight on close, then closes the file', async () => {
    const sb = await start();
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

describe('sandbox --data on a full or read-only disk', () => {
  let dir = '';
  let mounted = false;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'petstore-sandbox-tiny-'));
    mounted = mountTiny(dir);
  });
  afterEach(() => unmountTiny(dir, mounted));

  it('full: a create that does not fit gets a 500 storage_failed, one log line per failed write; every 201 survives a restart', async (ctx) => {
    if (missingTool('a tmpfs mount (mount, as root)', mounted)) return ctx.skip();
    const file = join(dir, 'pets.json');
    const logged: string[] = [];
    const sb = await startSandbox({ keys: ['k'], dataFile: file, perMinute: 100_000, perDay: 100_000, onError: (e) => void logged.push(String(e)) });
    const acknowledged: bigint[] = [];
    let failed: CallResult | undefined;
    try {
      for (let round = 0; round < 100 && !failed; round++) {
        const answers = await Promise.all(Array.from({ length: 4 }, (_, i) => createPet(sb, { name: `full-${round}-${i}-${'x'.repeat(100)}`, categoryId: 1 })));
        for (const a of answers) {
          if (a.status === 201) acknowledged.push(BigInt((a.json as { id: bigint | number }).id));
          else failed ??= a;
        }
      }
      expect(failed?.status).toBe(500);
      expect(failed?.json).toMatchObject({ code: 'storage_failed', status: 500 });
      expect((failed?.json as { message?: string } | undefined)?.message).toMatch(/not stored .*ENOSPC.*nothing was created/);
      expect(logged.length).toBeGreaterThanOrEqual(1);
      expect(logged.length).toBeLessThanOrEqual(sb.stats().persistErrors);
      // What the sandbox serves is what it acknowledged, no more.
      expect(sb.pets().map((p) => p.id)).toEqual(acknowledged);
    } finally {
      await sb.close();
    }
    const again = await startSandbox({ keys: ['k'], dataFile: file }).catch((e: unknown) => e);
    // Rewriting the file at start needs room for a second copy: on a disk this full that may fail, and says so.
    if (again instanceof Error) {
      expect(again.message).toMatch(/cannot write --data file .*ENOSPC/);
      expect((await loadData(file))?.pets.map((p) => p.id)).toEqual(acknowledged);
    } else {
      const sb2 = again as SandboxHandle;
      expect(sb2.pets().map((p) => p.id)).toEqual(acknowledged);
      await sb2.close();
    }
  });

  it('read-only at start: one clear error naming the file, which is left as it was', async (ctx) => {
    if (missingTool('a tmpfs mount (mount, as root)', mounted)) return ctx.skip();
    const file = join(dir, 'pets.json');
    const content = '{"petstore-sandbox-data":2,"nextId":1}\n{"id":1,"name":"Rex","categoryId":1}\n';
    await writeFile(file, content);
    expect(spawnSync('mount', ['-o', 'remount,ro', dir]).status).toBe(0);
    const err = await startSandbox({ keys: ['k'], dataFile: file }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SandboxStartError);
    expect((err as Error).message).toMatch(/^cannot write --data file .*pets\.json: .*EROFS/);
    expect(await readFile(file, 'utf8')).toBe(content);
  });
});
