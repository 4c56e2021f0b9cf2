import { closeSync, openSync, readSync } from 'node:fs';
import { Readable } from 'node:stream';

/**
 * A regular file as a stream of pieces read on the main thread, a turn of the event loop each (lets Ctrl-C and timers in): the
 * thread pool's reads cost a dry run more than its parsing. Regular files only: a pipe or terminal read could block.
 */
export class FileStream extends Readable {
  #fd: number | undefined;
  #position = 0;

  constructor(
    private readonly path: string,
    private readonly chunkBytes: number,
  ) {
    super({ highWaterMark: chunkBytes });
  }

  // Opened here rather than in the constructor: a file that cannot be opened is the stream's 'error', as with fs.createReadStream.
  override _construct(callback: (error?: Error | null) => void): void {
    try {
      this.#fd = openSync(this.path, 'r');
      callback();
    } catch (error) {
      callback(error as Error);
    }
  }

  override _read(): void {
    setImmediate(() => {
      if (this.destroyed) return;
      // A buffer of its own for each piece: the readers keep pieces of the chunks they were given.
      const chunk = Buffer.allocUnsafe(this.chunkBytes);
      let read: number;
      try {
        read = readSync(this.#fd as number, chunk, 0, chunk.length, this.#position);
      } catch (error) {
        this.destroy(error as Error);
        return;
      }
      this.#position += read;
      this.push(read === 0 ? null : read === chunk.length ? chunk : chunk.subarray(0, read));
    });
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    if (this.#fd !== undefined) {
      try {
        closeSync(this.#fd);
      } catch {
        // Failing to close a file only read loses nothing: `error` is what the reader hears of.
      }
      this.#fd = undefined;
    }
    callback(error);
  }
}
