import { existsSync } from 'node:fs';
import { execa } from 'execa';
import { BIN } from './cli.js';
import { missingTool } from './tools.js';

/** util-linux `script` gives the CLI a real pseudo-terminal for stdin, stdout and stderr (tests skip without it, but not in CI). */
export const hasScript = !missingTool('util-linux script (/usr/bin/script)', process.platform === 'linux' && existsSync('/usr/bin/script'));

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export interface PtyStep {
  /** Wait until the terminal output contains this... */
  waitFor: string;
  /** ...then type this. */
  type: string;
}

export interface PtyResult {
  /** Everything the terminal showed (stdout and stderr together, CRLF turned into LF). */
  output: string;
  exitCode: number;
}

/**
 * Runs the built CLI on a pseudo-terminal and types into it step by step, each step
 * after the expected text has appeared (so nothing is typed before the CLI is ready).
 */
export async function runOnPty(
  args: string[],
  opts: { env: Record<string, string | undefined>; steps?: PtyStep[]; timeoutMs?: number /** The terminal's width (stty cols). */; columns?: number },
): Promise<PtyResult> {
  const cli = [process.execPath, BIN, ...args].map(quote).join(' ');
  const command = opts.columns === undefined ? cli : `stty cols ${opts.columns} rows 40 && exec ${cli}`;
  const child = execa('script', ['-q', '-f', '-e', '-c', command, '/dev/null'], {
    env: { PATH: process.env.PATH, TERM: 'xterm', ...opts.env },
    extendEnv: false,
    reject: false,
    stdin: 'pipe',
    timeout: opts.timeoutMs ?? 20_000,
  });
  let output = '';
  const steps = [...(opts.steps ?? [])];
  let typedUpTo = 0;
  child.stdout?.on('data', (c: Buffer) => {
    output += c.toString('utf8');
    const next = steps[0];
    if (next && output.indexOf(next.waitFor, typedUpTo) !== -1) {
      steps.shift();
      typedUpTo = output.length;
      child.stdin?.write(next.type);
    }
  });
  const r = await child;
  return { output: output.replace(/\r\n/g, '\n'), exitCode: r.exitCode ?? -1 };
}
