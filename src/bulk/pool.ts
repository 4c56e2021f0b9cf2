export interface PoolOptions {
  concurrency: number;
  /** Checked before each new item: true stops pulling from the source. */
  stopped: () => boolean;
}

export type Outcome<R> = { ok: true; value: R } | { ok: false; error: unknown };

/**
 * Runs work over a stream of items with bounded concurrency and hands each outcome to emit as soon
 * as it is known (completion order: nothing waits in memory behind a slow item). A thrown error
 * stops new work; the items already started still finish and are emitted.
 */
export async function runPool<T, R>(
  source: AsyncIterable<T>,
  opts: PoolOptions,
  work: (item: T) => Promise<R>,
  emit: (item: T, outcome: Outcome<R>) => Promise<void> | void,
): Promise<void> {
  const iterator = source[Symbol.asyncIterator]();
  const inflight = new Set<Promise<void>>();
  let exhausted = false;
  let failed = false;

  const start = (item: T) => {
    const task: Promise<void> = work(item).then(
      (value) => emit(item, { ok: true, value }),
      (error: unknown) => {
        failed = true;
        return emit(item, { ok: false, error });
      },
    );
    const tracked = task.finally(() => inflight.delete(tracked));
    inflight.add(tracked);
  };

  try {
    for (;;) {
      while (!exhausted && !failed && !opts.stopped() && inflight.size < opts.concurrency) {
        const step = await iterator.next();
        if (step.done) {
          exhausted = true;
          break;
        }
        start(step.value);
      }
      if (inflight.size === 0) break;
      await Promise.race(inflight);
    }
  } finally {
    if (!exhausted) await iterator.return?.();
  }
}
