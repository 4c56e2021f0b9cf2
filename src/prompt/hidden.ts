import type { Readable, Writable } from 'node:stream';
import { InterruptedError, UsageError } from '../errors/errors.js';

type TtyIn = Readable & { isTTY?: boolean; isRaw?: boolean; setRawMode?: (raw: boolean) => unknown };

export interface HiddenPromptIO {
  stdin: TtyIn;
  stderr: Writable;
}

/**
 * Asks on stderr and reads one line from a terminal without echoing it.
 * Raw mode means the terminal no longer turns Ctrl-C into SIGINT, so it is handled here:
 * Ctrl-C rejects with InterruptedError (exit 130); Ctrl-D on an empty line too.
 * Backspace deletes a character, Ctrl-U the whole line; Enter finishes.
 *
 * Hand code, not @inquirer/password (tried, issue #13): inquirer re-renders the question with cursor
 * codes on every key and prefixes it, where this writes the question and one newline; its readline
 * moves an invisible cursor on arrow keys, so a blind Ctrl-U then clears only part of the key (under
 * tmux: ←←, Ctrl-U, retype gave a wrong key); Ctrl-D leaves it pending; keys typed before it is ready
 * are dropped.
 */
export function readHidden(io: HiddenPromptIO, question: string, signal?: AbortSignal): Promise<string> {
  const { stdin, stderr } = io;
  return new Promise<string>((resolve, reject) => {
    let value = '';
    // Inside an escape sequence (arrow keys, bracketed paste markers): 0 none, 1 after ESC, 2 in CSI/SS3.
    let inEscape = 0;
    const wasRaw = stdin.isRaw === true;
    const cleanup = () => {
      stdin.off('data', onData);
      stdin.off('end', onEnd);
      signal?.removeEventListener('abort', onAbort);
      if (typeof stdin.setRawMode === 'function') stdin.setRawMode(wasRaw);
      stdin.pause();
      stderr.write('\n');
    };
    const finish = (error?: Error) => {
      cleanup();
      if (error) reject(error);
      else resolve(value);
    };
    const onAbort = () => finish(new InterruptedError());
    const onEnd = () => finish(value.length > 0 ? undefined : new UsageError('no key entered'));
    const onData = (chunk: Buffer | string) => {
      for (const ch of String(chunk)) {
        if (inEscape === 1) {
          inEscape = ch === '[' || ch === 'O' ? 2 : 0;
          continue;
        }
        if (inEscape === 2) {
          if (ch >= '@' && ch <= '~') inEscape = 0;
          continue;
        }
        switch (ch) {
          case '\r':
          case '\n':
            finish();
            return;
          case '\u0003': // Ctrl-C
            finish(new InterruptedError());
            return;
          case '\u0004': // Ctrl-D
            if (value.length === 0) {
              finish(new InterruptedError());
              return;
            }
            break;
          case '\u007f': // Backspace (DEL)
          case '\b':
            value = value.slice(0, -1);
            break;
          case '\u0015': // Ctrl-U
            value = '';
            break;
          case '\u001b': // ESC: skip the sequence it starts
            inEscape = 1;
            break;
          default:
            // Other control characters (arrows arrive as ESC sequences) are not part of a key.
            if (ch >= ' ') value += ch;
        }
      }
    };
    if (signal?.aborted) {
      reject(new InterruptedError());
      return;
    }
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

/** All of a piped stdin as text, up to maxBytes (a key is short; a mistaken pipe of a large file is refused). */
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
