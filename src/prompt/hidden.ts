import type { Readable, Writable } from 'node:stream';
import { InterruptedError, UsageError } from '../errors/errors.js';

type TtyIn = Readable & { isTTY?: boolean; isRaw?: boolean; setRawMode?: (raw: boolean) => unknown };

// Reads one line from a terminal without echo; raw mode turns Ctrl-C into a key, so it rejects with InterruptedError.
// Not @inquirer/password (issue #13): it re-renders on every key, and a blind Ctrl-U cleared only part of the key.
export function readHidden(io: { stdin: TtyIn; stderr: Writable }, question: string, signal?: AbortSignal): Promise<string> {
  const { stdin, stderr } = io;
  return new Promise<string>((resolve, reject) => {
    const keys = new KeyReader();
    const wasRaw = stdin.isRaw === true;
    const finish = (error?: Error) => {
      stdin.off('data', onData);
      stdin.off('end', onEnd);
      signal?.removeEventListener('abort', onAbort);
      if (typeof stdin.setRawMode === 'function') stdin.setRawMode(wasRaw);
      stdin.pause();
      stderr.write('\n');
      if (error) reject(error);
      else resolve(keys.value);
    };
    const onAbort = () => finish(new InterruptedError());
    const onEnd = () => finish(keys.value.length > 0 ? undefined : new UsageError('no key entered'));
    const onData = (chunk: Buffer | string) => {
      for (const ch of String(chunk)) {
        const end = keys.take(ch);
        if (end) return finish(end === 'interrupt' ? new InterruptedError() : undefined);
      }
    };
    if (signal?.aborted) return reject(new InterruptedError());
    signal?.addEventListener('abort', onAbort, { once: true });
    // Echo goes off before the question appears, so nothing typed after it is ever shown.
    if (typeof stdin.setRawMode === 'function') stdin.setRawMode(true);
    stderr.write(question);
    stdin.setEncoding('utf8');
    stdin.on('data', onData);
    stdin.on('end', onEnd);
    stdin.resume();
  });
}

/** The line typed so far: Backspace deletes a character, Ctrl-U the line; escape sequences (arrows, paste markers) are skipped. */
class KeyReader {
  value = '';
  #escape = 0;

  take(ch: string): 'enter' | 'interrupt' | undefined {
    if (this.#escape === 1) {
      this.#escape = ch === '[' || ch === 'O' ? 2 : 0;
      return undefined;
    }
    if (this.#escape === 2) {
      if (ch >= '@' && ch <= '~') this.#escape = 0;
      return undefined;
    }
    switch (ch) {
      case '\r':
      case '\n':
        return 'enter';
      case '\u0003': // Ctrl-C
        return 'interrupt';
      case '\u0004': // Ctrl-D
        return this.value.length === 0 ? 'interrupt' : undefined;
      case '\u007f': // Backspace (DEL)
      case '\b':
        this.value = this.value.slice(0, -1);
        break;
      case '\u0015': // Ctrl-U
        this.value = '';
        break;
      case '\u001b':
        this.#escape = 1;
        break;
      default:
        // Other control characters are not part of a key.
        if (ch >= ' ') this.value += ch;
    }
    return undefined;
  }
}

export async function readAll(stdin: Readable, maxBytes = 64 * 1024): Promise<string> {
  let text = '';
  for await (const chunk of stdin) {
    text += String(chunk);
    if (text.length > maxBytes) {
      stdin.destroy();
      throw new UsageError(`stdin holds more than ${maxBytes / 1024} KiB; expected only an API key`);
    }
  }
  return text;
}
