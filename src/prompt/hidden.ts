import { emitKeypressEvents } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { InterruptedError, UsageError } from '../errors/errors.js';

type TtyIn = Readable & { isTTY?: boolean; isRaw?: boolean; setRawMode?: (raw: boolean) => unknown };

type Key = { name?: string; ctrl?: boolean };
const keyName = (key: Key = {}) => (key.ctrl ? `C-${key.name}` : key.name);

// Reads one line from a terminal without echo; raw mode turns Ctrl-C into a key, so it rejects with InterruptedError.
// Not @inquirer/password (issue #13): it re-renders on every key, and a blind Ctrl-U cleared only part of the key.
// Backspace deletes a character, Ctrl-U the line; escape sequences (arrows, paste markers) and control keys are skipped.
export function readHidden(io: { stdin: TtyIn; stderr: Writable }, question: string, signal?: AbortSignal): Promise<string> {
  const { stdin, stderr } = io;
  return new Promise<string>((resolve, reject) => {
    let value = '';
    const wasRaw = stdin.isRaw === true;
    const finish = (error?: Error) => {
      stdin.off('keypress', onKey);
      stdin.off('end', onEnd);
      signal?.removeEventListener('abort', onAbort);
      if (typeof stdin.setRawMode === 'function') stdin.setRawMode(wasRaw);
      stdin.pause();
      stderr.write('\n');
      if (error) reject(error);
      else resolve(value);
    };
    const onAbort = () => finish(new InterruptedError());
    const onEnd = () => finish(value.length > 0 ? undefined : new UsageError('no key entered'));
    // `ch` is undefined for an escape sequence; a control key's is below ' '.
    const onKey = (ch: string | undefined, key?: Key) => {
      const name = keyName(key);
      if (name === 'return' || name === 'enter') finish();
      else if (name === 'C-c' || (name === 'C-d' && value.length === 0)) finish(new InterruptedError());
      else if (name === 'backspace') value = value.slice(0, -1);
      else if (name === 'C-u') value = '';
      else if (ch !== undefined && ch >= ' ') value += ch;
    };
    if (signal?.aborted) return reject(new InterruptedError());
    signal?.addEventListener('abort', onAbort, { once: true });
    // Echo goes off before the question appears, so nothing typed after it is ever shown.
    if (typeof stdin.setRawMode === 'function') stdin.setRawMode(true);
    stderr.write(question);
    emitKeypressEvents(stdin);
    stdin.on('keypress', onKey);
    stdin.on('end', onEnd);
    stdin.resume();
  });
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
