import { keyProblem } from '../../config/target.js';
import { UsageError } from '../../errors/errors.js';
import type { Factory } from '../../factory.js';
import { readAll, readHidden } from '../../prompt/hidden.js';

const PIPE_HINT = 'pipe it instead (echo "$KEY" | petstore auth login) or set PETSTORE_API_KEY';

function checkKey(raw: string): string {
  const key = raw.trim();
  if (key.length === 0) throw new UsageError('no API key given: the input was empty', { code: 'empty_key' });
  const problem = keyProblem(key);
  if (problem !== undefined) {
    throw new UsageError(
      `invalid API key: ${problem}; a key that contains spaces, line breaks or non-ASCII characters cannot be sent in a header (expected a single token), nothing was stored`,
      { code: 'invalid_key' },
    );
  }
  return key;
}

export async function readKey(f: Factory, question: string): Promise<string> {
  if (!f.io.stdinIsTTY) {
    const text = await readAll(f.io.stdin);
    if (text.trim() === '') {
      throw new UsageError(
        'no API key given: stdin is not a terminal, so there is no prompt, and it was empty; pipe the key (echo "$KEY" | petstore auth login) or set PETSTORE_API_KEY',
        { code: 'empty_key' },
      );
    }
    return checkKey(text);
  }
  if (!f.globals.input) throw new UsageError(`--no-input: not prompting for the API key; ${PIPE_HINT}`);
  if (!f.io.canPrompt) throw new UsageError(`cannot prompt for the API key: stderr is not a terminal; ${PIPE_HINT}`);
  return checkKey(await readHidden({ stdin: f.io.stdin, stderr: f.io.stderr.stream }, question, f.signal));
}
