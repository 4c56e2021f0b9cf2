// JSON as a person at a terminal reads it: escaped for the terminal, and coloured when colour is on.

import { escapeControl } from './text.js';

/** A string (a key when a colon follows), true/false, null, or a number: JSON text has nothing else but punctuation. */
const TOKEN = /("(?:[^"\\]|\\.)*")(\s*:)?|\b(?:true|false)\b|\bnull\b|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

/**
 * `json` (from JSON.stringify) with DEL, C1 and bidi controls escaped the JSON way (still valid JSON, the
 * same value), and with colour: keys blue, strings green, numbers cyan, true/false yellow, null grey.
 */
export async function terminalJson(json: string, color: boolean): Promise<string> {
  const text = escapeControl(json, 'json');
  if (!color) return text;
  const { Chalk } = await import('chalk');
  const chalk = new Chalk({ level: 1 });
  return text.replace(TOKEN, (token: string, string: string | undefined, colon: string | undefined) => {
    if (string !== undefined) return colon !== undefined ? `${chalk.blue(string)}${colon}` : chalk.green(string);
    if (token === 'null') return chalk.gray(token);
    if (token === 'true' || token === 'false') return chalk.yellow(token);
    return chalk.cyan(token);
  });
}
