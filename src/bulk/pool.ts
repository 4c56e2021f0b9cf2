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
  /** With takeNow (a RecordStream), the items already read are taken without a promise each. */
  source: AsyncIterable<T> & { takeNow?(): T | undefined },
  opts: PoolOptions,
  work: (item: T) => Promise<R>,
  emit: (item: T, outcome: Outcome<R>) => Promise<void> | void,
): Promise<void> {
  const iterator = source[Symbol.asyncIterator]();
  let active = 0;
  let exhausted = false;
  let failed = false;
  let emitError: { error: unknown } | undefined;
  // Woken when an item is done and the next one is not at hand: a counter and one resolver, not
  // Promise.race over the items in flight (which adds a reaction to every one of them each time a
  // slot frees; issue #18).
  let wake: (() => void) | undefined;

  const open = () => !exhausted && !failed && !opts.stopped() && active < opts.concurrency;
  /** Starts the next item already read (takeNow), if a slot is open: true when it did. */
  const startReady = (): boolean => {
    if (!open()) return false;
    const now = source.takeNow?.();
    if (now === undefined) return false;
    start(now);
    return true;
  };
  const done = () => {
    active--;
    // The next item already read starts here, in the same turn: no wake-up of the loop (a promise
    // and a turn of the microtask queue per record).
    if (startReady()) return;
    const w = wake;
    wake = undefined;
    w?.();
  };
  const emitFailed = (error: unknown) => {
    // emit itself failed: the run stops pulling, and the error surfaces once the others are done.
    failed = true;
    emitError ??= { error };
    done();
  };
  const finish = (item: T, outcome: Outcome<R>) => {
    let emitted: Promise<void> | void;
    try {
      emitted = emit(item, outcome);
    } catch (error) {
      emitFailed(error);
      return;
    }
    if (emitted) emitted.then(done, emitFailed);
    else done();
  };
  function start(item: T): void {
    active++;
    work(item).then(
      (value) => finish(item, { ok: true, value }),
      (error: unknown) => {
        failed = true;
        finish(item, { ok: false, error });
      },
    );
  }

  try {
    for (;;) {
      while (open()) {
        if (startReady()) continue;
        const step = await iterator.next();
        if (step.done) {
          exhausted = true;
          break;
        }
        start(step.value);
      }
      if (active === 0) break;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  } finally {
    if (!exhausted) await iterator.return?.();
  }
  if (emitError) throw emitError.error;
}
