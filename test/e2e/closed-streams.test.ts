// Streams that fail under the CLI, as a user meets them in a shell:
// - a stderr whose reader has gone (`2>&1 | head -3`, `2> >(head -1)`): no crash, no stack trace, the
//   messages are dropped and the data work carries on; when stderr is the very pipe stdout is, the run
//   stops as for a closed stdout (exit 141 when `pets add --file` left records unsent);
// - a stdout that cannot be written (`> /dev/full`): exit 1 and one line naming the problem, whatever
//   the command; a stdout whose reader left (EPIPE) stays quiet.
// A "gone" reader is one whose end of the pipe was closed before the CLI started: deterministic, unlike
// a reader that exits while the CLI writes.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJson } from '../../src/json/int64.js';
import { BIN } from '../helpers/cli.js';
import { E2E_KEY, e2e, type E2E } from '../helpers/e2e.js';
import { missingTool } from '../helpers/tools.js';

let t: E2E;
beforeAll(async () => {
  t = await e2e();
});
afterAll(() => t.close());

function env(): Record<string, string | undefined> {
  return {
    PATH: process.env.PATH,
    HOME: t.dir,
    NODE: process.execPath,
    BIN,
    PETSTORE_CONFIG_DIR: t.configDir,
    PETSTORE_BASE_URL: t.sb.baseUrl,
    PETSTORE_API_KEY: E2E_KEY,
    PETSTORE_ENV: 'staging',
  };
}

const quote = (args: string[]) => args.map((a) => `'${a.replaceAll("'", `'\\''`)}'`).join(' ');

interface Run {
  exitCode: number | null;
  /** What was read from the streams left open. */
  stdout: string;
  stderr: string;
  ms: number;
}

/**
 * `petstore <args> <redirects>` in bash, with bash's stdout and/or stderr a pipe whose reader has gone
 * (`closed`): its end is closed as soon as the process is spawned, long before the CLI writes.
 */
function withGoneReader(args: string[], redirects: string, closed: ('stdout' | 'stderr')[]): Promise<Run> {
  const started = Date.now();
  const child = spawn('bash', ['-c', `"$NODE" "$BIN" ${quote(args)} ${redirects}`], { env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
  for (const name of closed) child[name].destroy();
  let stdout = '';
  let stderr = '';
  if (!closed.includes('stdout')) child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  if (!closed.includes('stderr')) child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  return new Promise((resolve) => {
    child.on('close', (exitCode) => {
      clearTimeout(timer);
      resolve({ exitCode, stdout, stderr, ms: Date.now() - started });
    });
  });
}

/** `petstore <args> <tail>` in bash, e.g. `2>&1 | "$NODE" -e "$READER"` or `> /dev/full`; the exit code is petstore's. */
async function shell(args: string[], tail: string, reader = ''): Promise<Run> {
  const started = Date.now();
  const r = await execa('bash', ['-c', `"$NODE" "$BIN" ${quote(args)} ${tail}`], {
    env: { ...env(), READER: reader },
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
    stripFinalNewline: false,
    timeout: 15_000,
  });
  return { exitCode: r.exitCode ?? null, stdout: String(r.stdout), stderr: String(r.stderr), ms: Date.now() - started };
}

/** Reads `n` lines from stdin, prints them and exits: `head -n`, in Node. */
const headLines = (n: number) =>
  `let k = 0; require('node:readline').createInterface({ input: process.stdin }).on('line', (l) => { console.log(l); if (++k === ${n}) process.exit(0); })`;

function input(name: string, n: number, invalidEvery = 0): string {
  const path = join(t.dir, `${name}.ndjson`);
  const line = (i: number) => (invalidEvery > 0 && i % invalidEvery === 0 ? '{not json\n' : `{"name":"${name}-${i}","categoryId":${i}}\n`);
  writeFileSync(path, Array.from({ length: n }, (_, i) => line(i + 1)).join(''));
  return path;
}

const created = (prefix: string) => t.sb.pets().filter((p) => p.name.startsWith(`${prefix}-`)).length;
const noStack = (text: string) => expect(text).not.toMatch(/\n\s+at |^\s+at |EPIPE|unexpected error|Node\.js v/m);

describe('a stderr whose reader has gone', () => {
  it('`pets add --file --dry-run 2>&1 | head -3`: the reader gets the first three result lines; the run stops at once, quietly, exit 141', async () => {
    const r = await shell(['pets', 'add', '--file', input('dry', 20_000), '--dry-run'], `2>&1 | "$NODE" -e "$READER"; exit "\${PIPESTATUS[0]}"`, headLines(3));
    expect(r.exitCode, r.stderr).toBe(141);
    expect(
      r.stdout
        .trimEnd()
        .split('\n')
        .map((l) => parseJson(l)),
    ).toEqual([1, 2, 3].map((line) => expect.objectContaining({ line, status: 'would_create' })));
    expect(r.stderr).toBe('');
    expect(r.ms).toBeLessThan(5000);
  });

  it('stderr gone, stdout fine: `pets add --file --debug` carries on, every record created and its result on stdout, exit 0', async () => {
    const r = await withGoneReader(['pets', 'add', '--file', input('debug', 20), '--debug'], '', ['stderr']);
    expect(r.exitCode).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(20);
    expect(lines.every((l) => (parseJson(l) as { status: string }).status === 'created')).toBe(true);
    expect(created('debug')).toBe(20);
  });

  it('`pets list --debug 2>&1` into a pipe whose reader has gone: exit 0, as `pets list | head -1`', async () => {
    const r = await withGoneReader(['pets', 'list', '--debug'], '2>&1', ['stdout']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
  });

  it('`pets add --file --skip-invalid 2>&1` into a pipe whose reader has gone: the first warning finds the reader gone for stdout too, nothing is sent, exit 141', async () => {
    const r = await withGoneReader(['pets', 'add', '--file', input('shared', 200, 2), '--skip-invalid'], '2>&1', ['stdout']);
    expect(r.exitCode, r.stderr).toBe(141);
    expect(r.stderr).toBe('');
    expect(created('shared')).toBe(0);
  });
});

describe('a stdout whose reader has gone', () => {
  it('`pets list` into a pipe whose reader has gone: quiet, exit 0', async () => {
    const r = await withGoneReader(['pets', 'list'], '', ['stdout']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
  });
});

describe.skipIf(missingTool('/dev/full', existsSync('/dev/full')))('a stdout on a full disk (> /dev/full)', () => {
  const line = 'error: cannot write to stdout: no space left on the device (ENOSPC)\n';

  it('`pets list > /dev/full`: exit 1, one line naming stdout and ENOSPC', async () => {
    const r = await shell(['pets', 'list'], '> /dev/full');
    expect(r.exitCode, r.stderr).toBe(1);
    expect(r.stderr).toBe(line);
  });

  it('`-o json`: the same line, then the error as JSON', async () => {
    const r = await shell(['pets', 'list', '-o', 'json'], '> /dev/full');
    expect(r.exitCode, r.stderr).toBe(1);
    expect(r.stderr.split('\n')[0]).toBe(line.trimEnd());
    expect(parseJson(r.stderr.split('\n')[1]!)).toEqual({ error: { code: 'stdout_not_written', message: line.slice(7, -1), exitCode: 1 } });
  });

  it('commands that need no server, --help and --version: exit 1, the same one line', async () => {
    for (const args of [['--quiet', 'env', 'list'], ['--help'], ['--version']]) {
      const r = await shell(args, '> /dev/full');
      expect([args, r.exitCode, r.stderr]).toEqual([args, 1, line]);
    }
  });

  it('`pets add --file --results <file> -o table > /dev/full`: every record created and in the results file; the lost table is exit 1', async () => {
    const results = join(t.dir, 'table-results.ndjson');
    const r = await shell(['pets', 'add', '--file', input('table', 5), '--results', results, '-o', 'table'], '> /dev/full');
    noStack(r.stderr);
    expect(r.exitCode, r.stderr).toBe(1);
    expect(r.stderr.split('\n').filter((l) => l.startsWith('error:'))).toEqual([line.trimEnd()]);
    expect(
      readFileSync(results, 'utf8')
        .split('\n')
        .filter((l) => l.includes('"status":"created"')),
    ).toHaveLength(5);
    expect(created('table')).toBe(5);
  });
});
