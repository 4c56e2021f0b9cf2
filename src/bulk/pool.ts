export interface PoolOptions {
  concurrency: number;
  /** Checked before each new item: true stops pulling from the source. */
  stopped: () => boolean;
}

export type Outcome<R> = { ok: true; value: R } | { ok: false; error: unknown };

/**
 * Runs work over a stream of items, `concurrency` at once, handing each outcome to emit as it comes; an item holds its slot until
 * emit's promise settles. A thrown error stops new work (started items still finish); an error from emit surfaces at the end.
 */
export async function runPool<T, R>(
  source: AsyncIterable<T>,
  opts: PoolOptions,
  work: (item: T) => Promise<R>,
  emit: (item: T, outcome: Outcome<R>) => Promise<void> | void,
): Promise<void> {
  const iterator = source[Symbol.asyncIterator]();
  const running = new Set<Promise<void>>();
  let failed = false;
  let exhausted = false;
  let emitError: { error: unknown } | undefined;

  const start = (item: T) => {
    const task = work(item)
      .then(
        (value): Outcome<R> => ({ ok: true, value }),
        (error: unknown): Outcome<R> => {
          failed = true;
          return { ok: false, error };
        },
      )
      .then((outcome) => emit(item, outcome))
      .catch((error: unknown) => {
        failed = true;
        emitError ??= { error };
      })
      .finally(() => running.delete(task));
    running.add(task);
  };

  try {
    while (!failed && !opts.stopped()) {
      if (running.size >= opts.concurrency) {
        await Promise.race(running);
        continue;
      }
      const step = await iterator.next();
      if (step.done) {
        exhausted = true;
        break;
      }
      start(step.value);
    }
  } finally {
    await Promise.all(running);
    if (!exhausted) await iterator.return?.();
  }
  if (emitError) throw emitError.error;
}
