import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { InterruptedError } from '../errors/errors.js';

/** Asks a yes/no question on a terminal; only "y" or "yes" confirms. */
export async function confirm(io: { stdin: Readable; stderr: Writable }, question: string, signal?: AbortSignal): Promise<boolean> {
  const rl = createInterface({ input: io.stdin, output: io.stderr, terminal: false });
  try {
    io.stderr.write(`${question} [y/N] `);
    const answer = await new Promise<string>((resolve, reject) => {
      const onAbort = () => reject(new InterruptedError());
      signal?.addEventListener('abort', onAbort, { once: true });
      rl.once('line', (line) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(line);
      });
      rl.once('close', () => resolve(''));
    });
    return /^\s*y(es)?\s*$/i.test(answer);
  } finally {
    rl.close();
  }
}
