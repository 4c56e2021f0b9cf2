import { escapeControl } from './text.js';

/** A string (a key when a colon follows), true/false, null, or a number: JSON text has nothing else but punctuation. */
const TOKEN = /("(?:[^"\\]|\\.)*")(\s*:)?|\b(?:true|false)\b|\bnull\b|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

/**
 * `json` (from JSON.stringify) with DEL, C1 and bidi controls escaped the JSON way (still valid JSON, the
 * same value), and with colour: keys blue, strings green, numbers cyan, true/false yellow, null grey.
 */
export async function terminalJson(json: string, color: boolean): Promise<string> {
  return (await terminalJsonWriter(color))(json);
}

/** terminalJson as a function for many texts (a seeding run's result lines). */
export async function terminalJsonWriter(color: boolean): Promise<(json: string) => string> {
  if (!color) return (json) => escapeControl(json, 'json');
  const { Chalk } = await import('chalk');
  const chalk = new Chalk({ level: 1 });
  return (json) =>
    escapeControl(json, 'json').replace(TOKEN, (token: string, string: string | undefined, colon: string | undefined) => {
      if (string !== undefined) return colon !== undefined ? `${chalk.blue(string)}${colon}` : chalk.green(string);
      if (token === 'null') return chalk.gray(token);
      if (token === 'true' || token === 'false') return chalk.yellow(token);
      return chalk.cyan(token);
    });
}
