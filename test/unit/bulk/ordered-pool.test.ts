import { describe, expect, it } from 'vitest';
import { runOrdered, type Outcome } from '../../../src/bulk/ordered-pool.js';

async function* range(n: number) {
  for (let i = 0; i < n; i++) yield i;
}

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('runOrdered', () => {
  it('emits in source order whatever order the work finishes in, never above the concurrency', async () => {
    let running = 0;
    let peak = 0;
    const emitted: number[] = [];
    await runOrdered(
      range(20),
      { concurrency: 4, window: 100, stopped: () => false },
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
    expect(emitted).toEqual([...Array(20).keys()]);
    expect(peak).toBe(4);
  });

  it('stops pulling when stopped, and still emits what was started', async () => {
    let stop = false;
    const emitted: number[] = [];
    await runOrdered(
      range(100),
      { concurrency: 3, window: 100, stopped: () => stop },
      async (i) => {
        if (i === 5) stop = true;
        await tick(1);
        return i;
      },
      (i) => void emitted.push(i),
    );
    expect(emitted).toEqual([0, 1, 2, 3, 4, 5, 6, 7].slice(0, emitted.length));
    expect(emitted.length).toBeGreaterThanOrEqual(6);
    expect(emitted.length).toBeLessThanOrEqual(8);
  });

  it('a thrown error stops new work; the failed item is emitted as an error, in order', async () => {
    const outcomes: [number, Outcome<number>][] = [];
    await runOrdered(
      range(50),
      { concurrency: 2, window: 10, stopped: () => false },
      async (i) => {
        await tick(1);
        if (i === 3) throw new Error('gave up');
        return i;
      },
      (i, o) => void outcomes.push([i, o]),
    );
    const failed = outcomes.find(([, o]) => !o.ok);
    expect(failed?.[0]).toBe(3);
    expect(outcomes.map(([i]) => i)).toEqual([...Array(outcomes.length).keys()]);
    expect(outcomes.length).toBeLessThanOrEqual(5);
  });

  it('keeps at most `window` items ahead of a slow one', async () => {
    let started = 0;
    let release!: () => void;
    const slow = new Promise<void>((r) => (release = r));
    const run = runOrdered(
      range(100),
      { concurrency: 50, window: 8, stopped: () => false },
      async (i) => {
        started++;
        if (i === 0) await slow;
        return i;
      },
      () => {},
    );
    await tick(20);
    expect(started).toBe(8);
    release();
    await run;
    expect(started).toBe(100);
  });
});
