// The transport's deadlines on one timer (src/transport/deadlines.ts), on vitest's fake clock.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Deadlines } from '../../../src/transport/deadlines.js';

describe('Deadlines', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  function make(ms: number) {
    const expired: string[] = [];
    const d = new Deadlines<string>(
      ms,
      (item) => expired.push(`${item}@${Date.now()}`),
      () => Date.now(),
    );
    return { d, expired };
  }

  it('each item ends at its own deadline, oldest first, on one timer', () => {
    const { d, expired } = make(1000);
    const start = Date.now();
    d.add('a');
    vi.advanceTimersByTime(300);
    d.add('b');
    vi.advanceTimersByTime(300);
    d.add('c');
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(399);
    expect(expired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(expired).toEqual([`a@${start + 1000}`]);
    vi.advanceTimersByTime(300);
    expect(expired).toEqual([`a@${start + 1000}`, `b@${start + 1300}`]);
    vi.advanceTimersByTime(300);
    expect(expired).toEqual([`a@${start + 1000}`, `b@${start + 1300}`, `c@${start + 1600}`]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('an item taken out in time never expires, and the next one still ends at its own deadline', () => {
    const { d, expired } = make(1000);
    const start = Date.now();
    const a = d.add('a');
    vi.advanceTimersByTime(500);
    const b = d.add('b');
    vi.advanceTimersByTime(100);
    d.delete(a);
    vi.advanceTimersByTime(899);
    expect(expired).toEqual([]);
    expect(b.expired).toBe(false);
    vi.advanceTimersByTime(1);
    expect(expired).toEqual([`b@${start + 1500}`]);
    expect(a.expired).toBe(false);
    expect(b.expired).toBe(true);
  });

  it('no timer is left once nothing is in flight, however many came and went', () => {
    const { d, expired } = make(30_000);
    for (let i = 0; i < 1000; i++) {
      const e = d.add(`r${i}`);
      vi.advanceTimersByTime(1);
      d.delete(e);
    }
    expect(vi.getTimerCount()).toBe(0);
    const live = Array.from({ length: 100 }, (_, i) => d.add(`live${i}`));
    expect(vi.getTimerCount()).toBe(1);
    for (const e of live) d.delete(e);
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(60_000);
    expect(expired).toEqual([]);
  });

  it('items() lists those in flight, oldest first', () => {
    const { d } = make(1000);
    const a = d.add('a');
    d.add('b');
    d.add('c');
    d.delete(a);
    expect([...d.items()]).toEqual(['b', 'c']);
  });
});
