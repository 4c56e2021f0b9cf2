export interface PoolOptions {
  concurrency: number;
  /** Most items started ahead of the oldest unfinished one, so memory stays bounded when one item is slow. */
  window: number;
  /** Checked before each new item: true stops pulling from the source. */
  stopped: () => boolean;
}

export type Outcome<R> = { ok: true; value: R } | { ok: false; error: unknown };

/**
 * Runs work over a stream of items with bounded concurrency and hands the
 * outcomes to emit in source order. A thrown error stops new work; the items
 * already started still finish and are emitted.
 */
export async function runOrdered<T, R>(
  source: AsyncIterable<T>,
  opts: PoolOptions,
  work: (item: T) => Promise<R>,
  emit: (item: T, outcome: Outcome<R>) => Promise<void> | void,
): Promise<void> {
  const iterator = source[Symbol.asyncIterator]();
  const finished = new Map<number, { item: T; outcome: Outcome<R> }>();
  const inflight = new Set<Promise<void>>();
  let next = 0;
  let head = 0;
  let exhausted = false;
  let failed = false;

  try {
    for (;;) {
      while (!exhausted && !failed && !opts.stopped() && inflight.size < opts.concurrency && next - head < opts.window) {
        const step = await iterator.next();
        if (step.done) {
          exhausted = true;
          break;
        }
        const seq = next++;
        const item = step.value;
        const task: Promise<void> = work(item).then(
          (value) => void finished.set(seq, { item, outcome: { ok: true, value } }),
          (error: unknown) => {
            failed = true;
            finished.set(seq, { item, outcome: { ok: false, error } });
          },
        );
        const tracked = task.finally(() => inflight.delete(tracked));
        inflight.add(tracked);
      }
      for (let done = finished.get(head); done; done = finished.get(head)) {
        finished.delete(head);
        head++;
        await emit(done.item, done.outcome);
      }
      if (inflight.size === 0) {
        if (exhausted || failed || opts.stopped()) break;
        continue;
      }
      await Promise.race(inflight);
    }
  } finally {
    if (!exhausted) await iterator.return?.();
  }
}
