// Questions for what a command line left out (gh-style), on stderr, plain as confirm() is.
import type { Readable, Writable } from 'node:stream';
import { InterruptedError, UsageError } from '../errors/errors.js';
import { PLAIN_THEME, prompt } from './confirm.js';

type PromptIO = { stdin: Readable; stderr: Writable };

/** Ctrl-D in a question: the person gave up on it. */
const gaveUp = (): never => {
  throw new InterruptedError();
};

/** A line of text, checked by `parse` (the flag's own parser): its usage error is shown and the question asked again. */
export async function askText(io: PromptIO, message: string, parse: (text: string) => unknown, signal?: AbortSignal): Promise<string> {
  const { default: input } = await import('@inquirer/input');
  const validate = (text: string): true | string => {
    try {
      parse(text);
      return true;
    } catch (error) {
      if (error instanceof UsageError) return error.message;
      throw error;
    }
  };
  return prompt(io, (context) => input({ message, validate, theme: PLAIN_THEME }, context), gaveUp, signal);
}

/** One of `choices` (arrow keys, Enter), the first preselected. */
export async function askChoice(io: PromptIO, message: string, choices: readonly string[], signal?: AbortSignal): Promise<string> {
  const { default: select } = await import('@inquirer/select');
  return prompt(io, (context) => select({ message, choices, default: choices[0], theme: PLAIN_THEME }, context), gaveUp, signal);
}
