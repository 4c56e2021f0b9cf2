import { escapeControl } from './text.js';

const TOKEN = /("(?:[^"\\]|\\.)*")(\s*:)?|\b(?:true|false)\b|\bnull\b|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

/** JSON text with DEL, C1 and bidi controls escaped the JSON way (same value), coloured by token kind. */
export async function terminalJson(json: string, color: boolean): Promise<string> {
  return (await terminalJsonWriter(color))(json);
}

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
