import { existsSync } from 'node:fs';
import { execa } from 'execa';
import { BIN } from './cli.js';
import { missingTool } from './tools.js';

/** util-linux `script` gives the CLI a real pseudo-terminal for stdin, stdout and stderr (tests skip without it, but not in CI). */
export const hasScript = !missingTool('util-linux script (/usr/bin/script)', process.platform === 'linux' && existsSync('/usr/bin/script'));

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export interface PtyStep {
  /** Wait until the terminal output (after the previous step) contains this... */
  waitFor: string | RegExp;
  /** ...then type this. */
  type: string;
}

export interface PtyResult {
  /** Everything the terminal showed (stdout and stderr together, CRLF turned into LF). */
  output: string;
  /** How many bytes the terminal received. */
  bytes: number;
  exitCode: number;
  /** ms from typing the last step to the exit (undefined without steps). */
  exitAfterLastStepMs: number | undefined;
  /** Each chunk the terminal received, with when it arrived and when the process had ended (Date.now() ms). */
  timeline: { at: number; text: string }[];
  exitedAt: number;
  /** The screen as a person sees it at the end (scrollback included), rendered by @xterm/headless at the pty's size; trailing blanks trimmed. */
  screen(): Promise<string[]>;
}

/**
 * Runs the built CLI on a pseudo-terminal of `cols` × `rows` (80 × 24 by default) and types into it
 * step by step, each step after the expected text has appeared (so nothing is typed before the CLI is
 * ready).
 */
export async function runOnPty(
  args: string[],
  opts: { env: Record<string, string | undefined>; steps?: PtyStep[]; timeoutMs?: number; cols?: number; rows?: number },
): Promise<PtyResult> {
  const cols = opts.cols ?? 80;
  const rows = opts.rows ?? 24;
  // script(1) gives the pty the size of its own stdin, a pipe here: 0 × 0 unless set.
  const command = `stty cols ${cols} rows ${rows}; exec ${[process.execPath, BIN, ...args].map(quote).join(' ')}`;
  const child = execa('script', ['-q', '-f', '-e', '-c', command, '/dev/null'], {
    env: { PATH: process.env.PATH, TERM: 'xterm', ...opts.env },
    extendEnv: false,
    reject: false,
    stdin: 'pipe',
    timeout: opts.timeoutMs ?? 20_000,
  });
  const chunks: Buffer[] = [];
  const timeline: { at: number; text: string }[] = [];
  let output = '';
  const steps = [...(opts.steps ?? [])];
  let typedUpTo = 0;
  let lastTypedAt: number | undefined;
  child.stdout?.on('data', (c: Buffer) => {
    chunks.push(c);
    timeline.push({ at: Date.now(), text: c.toString('utf8') });
    output += c.toString('utf8');
    const next = steps[0];
    if (!next) return;
    const rest = output.slice(typedUpTo);
    if (typeof next.waitFor === 'string' ? rest.includes(next.waitFor) : next.waitFor.test(rest)) {
      steps.shift();
      typedUpTo = output.length;
      lastTypedAt = Date.now();
      child.stdin?.write(next.type);
    }
  });
  const r = await child;
  const exitedAt = Date.now();
  const raw = Buffer.concat(chunks);
  return {
    output: output.replace(/\r\n/g, '\n'),
    bytes: raw.length,
    exitCode: r.exitCode ?? -1,
    timeline,
    exitedAt,
    exitAfterLastStepMs: lastTypedAt === undefined || steps.length > 0 ? undefined : exitedAt - lastTypedAt,
    screen: () => renderScreen(raw, cols, rows),
  };
}

/** What a terminal of cols × rows shows after receiving `raw` (every line, scrollback included). */
async function renderScreen(raw: Buffer, cols: number, rows: number): Promise<string[]> {
  const { Terminal } = await import('@xterm/headless');
  const term = new Terminal({ cols, rows, scrollback: 100_000, allowProposedApi: true });
  await new Promise<void>((resolve) => term.write(raw, resolve));
  const buffer = term.buffer.active;
  const lines: string[] = [];
  for (let i = 0; i < buffer.length; i++) lines.push(buffer.getLine(i)?.translateToString(true) ?? '');
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  term.dispose();
  return lines;
}
