import { describe, expect, it } from 'vitest';
import { runPool, type Outcome } from '../../../src/bulk/pool.js';

async function* range(n: number) {
  for (let i = 0; i < n; i++) yield i;
}

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('runPool', () => {
  it('emits each outcome as it finishes, never above the concurrency, each item once', async () => {
    let running = 0;
    let peak = 0;
    const emitted: number[] = [];
    await runPool(
      range(20),
      { concurrency: 4, stopped: () => false },
      async (i) => {
        running++;
        peak = Math.max(peak, running);
        await tick((20 - i) % 5);
        running--;
        return i * 10;
      },
      (i, o) => {
        expect(o).toEqual({ ok: true, value: i * 10 });
        emitted.push(i);
      },
    );
    expect([...emitted].sort((a, b) => a - b)).toEqual([...Array(20).keys()]);
    expect(emitted).not.toEqual([...Array(20).keys()]);
    expect(peak).toBe(4);
  });

  it('a slow item holds nothing back: the ones after it are emitted before it', async () => {
    let release!: () => void;
    const slow = new Promise<void>((r) => (release = r));
    const emitted: number[] = [];
    const run = runPool(
      range(10),
      { concurrency: 3, stopped: () => false },
      async (i) => {
        if (i === 0) await slow;
        return i;
      },
      (i) => void emitted.push(i),
    );
    await tick(20);
    expect(emitted).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    release();
    await run;
    expect(emitted.at(-1)).toBe(0);
  });

  it('stops pulling when stopped, and still emits what was started', async () => {
    let stop = false;
    const emitted: number[] = [];
    await runPool(
      range(100),
      { concurrency: 3, stopped: () => stop },
      async (i) => {
        if (i === 5) stop = true;
        await tick(1);
        return i;
      },
      (i) => void emitted.push(i),
    );
    expect(emitted.length).toBeGreaterThanOrEqual(6);
    expect(emitted.length).toBeLessThanOrEqual(8);
  });

  it('a thrown error stops new work; the failed item is emitted as an error', async () => {
    const outcomes: [number, Outcome<number>][] = [];
    await runPool(
      range(50),
      { concurrency: 2, stopped: () => false },
      async (i) => {
        await tick(1);
        if (i === 3) throw new Error('gave up');
        return i;
      },
      (i, o) => void outcomes.push([i, o]),
    );
    expect(outcomes.filter(([, o]) => !o.ok).map(([i]) => i)).toEqual([3]);
    expect(outcomes.length).toBeLessThanOrEqual(5);
  });

  it('takes a plain iterable (records pass 1 kept) as it takes an async one: each item once, a read error thrown at the end', async () => {
    const emitted: number[] = [];
    await runPool(
      [...Array(12).keys()],
      { concurrency: 4, stopped: () => false },
      async (i) => i,
      (i) => void emitted.push(i),
    );
    expect([...emitted].sort((a, b) => a - b)).toEqual([...Array(12).keys()]);

    function* breaks() {
      yield 1;
      throw new Error('cannot read');
    }
    const seen: number[] = [];
    await expect(
      runPool(
        breaks(),
        { concurrency: 2, stopped: () => false },
        (i) => i,
        (i) => void seen.push(i),
      ),
    ).rejects.toThrow('cannot read');
    expect(seen).toEqual([1]);
  });
});
