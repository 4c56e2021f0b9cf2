import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadData } from '../../src/sandbox/store.js';
import { startSandbox } from '../../src/sandbox/server.js';
import { call, createPet } from './helpers.js';

describe('sandbox concurrency', () => {
  it('64 parallel POSTs get unique, gap-free ids', async () => {
    const sb = await startSandbox({ keys: ['k'], perMinute: 1000, firstId: '9007199254740990' });
    try {
      const results = await Promise.all(Array.from({ length: 64 }, (_, i) => createPet(sb, { name: `pet-${i}`, categoryId: i })));
      expect(results.map((r) => r.status)).toEqual(Array(64).fill(201));
      const ids = results.map((r) => (r.json as { id: bigint | number }).id).map((id) => BigInt(id));
      const sorted = [...ids].sort((a, b) => (a < b ? -1 : 1));
      expect(new Set(ids).size).toBe(64);
      expect(sorted).toEqual(Array.from({ length: 64 }, (_, i) => 9007199254740990n + BigInt(i)));
      // Each response's id belongs to the pet it created.
      for (const [i, r] of results.entries()) expect((r.json as { name: string }).name).toBe(`pet-${i}`);
      expect(sb.pets().map((p) => p.id)).toEqual(sorted);
      const list = await call(sb, 'GET', '/v1/pets?limit=100');
      expect((list.json as unknown[]).length).toBe(64);
      expect(sb.stats().created).toBe(64);
    } finally {
      await sb.close();
    }
  });

  it('64 parallel POSTs mixed with rejected ones and reads, persisted exactly', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'petstore-sandbox-'));
    const file = join(dir, 'pets.json');
    const sb = await startSandbox({ keys: ['k'], perMinute: 1000, dataFile: file });
    try {
      const jobs = Array.from({ length: 64 }, (_, i) => createPet(sb, { name: `pet-${i}`, categoryId: i }));
      const bad = Array.from({ length: 16 }, () => createPet(sb, { name: '', categoryId: 1 }));
      const reads = Array.from({ length: 16 }, () => call(sb, 'GET', '/v1/pets'));
      const [ok, rejected, listed] = await Promise.all([Promise.all(jobs), Promise.all(bad), Promise.all(reads)]);
      expect(ok.every((r) => r.status === 201)).toBe(true);
      expect(rejected.every((r) => r.status === 400)).toBe(true);
      expect(listed.every((r) => r.status === 200)).toBe(true);
      await sb.close();
      const doc = await loadData(file);
      expect(doc?.nextId).toBe(65n);
      expect(doc?.pets.map((p) => p.id)).toEqual(Array.from({ length: 64 }, (_, i) => BigInt(i + 1)));
    } finally {
      await sb.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
