import type { Factory } from '../factory.js';

/** The settings of a seeding run that its continuation repeats. */
export interface RunSettings {
  file: string;
  format: string | undefined;
  resultsPath: string | undefined;
  resume: string | true | undefined;
  concurrency: number;
  skipInvalid: boolean;
  yes: boolean;
  output: 'ndjson' | 'table';
}

/** Single quotes for anything a shell would read differently. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The command that continues this run's journal (same input, server, settings, with --resume); never --retry-unknown: unknowns are checked first. */
export function continueCommand(f: Pick<Factory, 'globals'>, o: RunSettings): string {
  const words = ['petstore'];
  if (f.globals.env !== undefined) words.push('--env', f.globals.env);
  words.push('pets', 'add', '--file', o.file);
  if (o.format !== undefined) words.push('--format', o.format);
  if (o.resultsPath !== undefined) words.push('--results', o.resultsPath, '--resume');
  else if (typeof o.resume === 'string') words.push('--resume', o.resume);
  else words.push('--resume');
  words.push('--concurrency', String(o.concurrency));
  if (o.skipInvalid) words.push('--skip-invalid');
  if (o.yes) words.push('--yes');
  if (o.output === 'table') words.push('-o', 'table');
  const command = words.map(shellWord).join(' ');
  return o.file === '-' ? `${command} (with the same records on stdin)` : command;
}
