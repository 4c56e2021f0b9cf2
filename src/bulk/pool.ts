export type Outcome<R> = { ok: true; value: R } | { ok: false; error: unknown };

/**
 * Runs work over items, `concurrency` at once; an item holds its slot until emit's promise settles. `stopped()` is asked before
 * each item; a thrown error stops new work (started items finish); an error from emit surfaces at the end.
 */
export async function runPool<T, R>(
  source: AsyncIterable<T> | Iterable<T>,
  opts: { concurrency: number; stopped: () => boolean },
  work: (item: T) => R | Promise<R>,
  emit: (item: T, outcome: Outcome<R>) => Promise<void> | void,
): Promise<void> {
  const iterator = Symbol.asyncIterator in source ? source[Symbol.asyncIterator]() : source[Symbol.iterator]();
  let failed = false;
  let exhausted = false;
  let emitError: { error: unknown } | undefined;

  // Each worker takes the next item (an async generator queues the calls), works it, emits it, and goes on.
  const worker = async (): Promise<void> => {
    while (!failed && !opts.stopped()) {
      let step: IteratorResult<T>;
      try {
        step = await iterator.next();
      } catch (error) {
        failed = true;
        throw error;
      }
      if (step.done) {
        exhausted = true;
        return;
      }
      let outcome: Outcome<R>;
      try {
        outcome = { ok: true, value: await work(step.value) };
      } catch (error) {
        failed = true;
        outcome = { ok: false, error };
      }
      try {
        await emit(step.value, outcome);
      } catch (error) {
        failed = true;
        emitError ??= { error };
      }
    }
  };
  // A failed read of the source stops the other workers after their item, then is thrown.
  const ends = await Promise.allSettled(Array.from({ length: opts.concurrency }, worker));
  if (!exhausted) await iterator.return?.();
  const readError = ends.find((end) => end.status === 'rejected');
  if (readError) throw readError.reason;
  if (emitError) throw emitError.error;
}
