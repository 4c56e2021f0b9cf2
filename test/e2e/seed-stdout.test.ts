// `pets add --file ... | head -1`: a reader that leaves early ends the run quietly (no stack trace):
// sending stops, exit 141 when records were left unsent, and a results file holds every pet created.
// A stdout on a full disk (`> /dev/full`) is a results file that cannot be written: exit 1.
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
  // A little latency, so 2,000 records take seconds and the reader surely leaves before the end.
  t = await e2e({ latencyMs: 5 });
});
afterAll(() => t.close());

/** Reads one line from stdin, prints it and exits: `head -1`, in Node. */
const READ_ONE_LINE = `require('node:readline').createInterface({ input: process.stdin }).once('line', (l) => { console.log(l); process.exit(0); })`;
/** Reads nothing and exits at once. */
const READ_NOTHING = 'process.exit(0)';

/** `petstore <args> | node -e <reader>` in bash; the exit code is petstore's (PIPESTATUS[0]). */
function piped(args: string[], reader: string): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  return shell(args, `| "$NODE" -e "$READER"; exit "\${PIPESTATUS[0]}"`, reader);
}

/** `petstore <args> <tail>` in bash, e.g. `> /dev/full`. */
async function shell(args: string[], tail: string, reader = ''): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  const quoted = args.map((a) => `'${a.replaceAll("'", `'\\''`)}'`).join(' ');
  const r = await execa('bash', ['-c', `"$NODE" "$BIN" ${quoted} ${tail}`], {
    env: {
      PATH: process.env.PATH,
      HOME: t.dir,
      NODE: process.execPath,
      BIN,
      READER: reader,
      PETSTORE_CONFIG_DIR: t.configDir,
      PETSTORE_BASE_URL: t.sb.baseUrl,
      PETSTORE_API_KEY: E2E_KEY,
      PETSTORE_ENV: 'staging',
    },
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
    timeout: 25_000,
  });
  return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
}

function input(name: string, n: number): string {
  const path = join(t.dir, `${name}.ndjson`);
  writeFileSync(path, Array.from({ length: n }, (_, i) => `{"name":"${name}-${i + 1}","categoryId":${i + 1}}\n`).join(''));
  return path;
}

const created = (prefix: string) => t.sb.pets().filter((p) => p.name.startsWith(`${prefix}-`)).length;
const noStack = (stderr: string) => expect(stderr).not.toMatch(/\n\s+at |^\s+at |EPIPE|unexpected error|Node\.js v/m);

describe('a stdout whose reader leaves early', () => {
  it('results on stdout into `head -1`: sending stops, exit 141, one line saying so, no stack trace', async () => {
    const path = input('head', 2000);
    const r = await piped(['pets', 'add', '--file', path], READ_ONE_LINE);
    noStack(r.stderr);
    expect(r.exitCode, r.stderr).toBe(141);
    expect(parseJson(r.stdout.trim())).toMatchObject({ status: 'created' });
    expect(r.stderr.split('\n').filter((l) => l.startsWith('error:'))).toEqual([
      expect.stringMatching(
        /^error: stdout was closed \(its reader exited\): stopped after \d+ of 2000 records; the others were not sent; run: petstore pets add --file \S+ --resume/,
      ),
    ]);
    // Stopped at once: the requests in flight when the reader left, not the 2,000.
    expect(created('head')).toBeGreaterThan(0);
    expect(created('head')).toBeLessThan(200);
    // The journal, named at the start, holds every pet created: the suggested --resume sends the rest once.
    const journal = /^journal: (.+)$/m.exec(r.stderr)?.[1] as string;
    expect(
      readFileSync(journal, 'utf8')
        .split('\n')
        .filter((l) => l.includes('"status":"created"')),
    ).toHaveLength(created('head'));
    const again = await shell(['pets', 'add', '--file', path, '--resume'], '> /dev/null');
    expect(again.exitCode, again.stderr).toBe(0);
    expect(created('head')).toBe(2000);
    expect(
      new Set(
        t.sb
          .pets()
          .filter((p) => p.name.startsWith('head-'))
          .map((p) => p.name),
      ).size,
    ).toBe(2000);
  });

  it('`--dry-run | head -1`: exit 141 and one line saying the dry run stopped, with no continuation to run (a --resume would send)', async () => {
    const r = await piped(['pets', 'add', '--file', input('dryhead', 200_000), '--dry-run'], READ_ONE_LINE);
    noStack(r.stderr);
    expect(r.exitCode, r.stderr).toBe(141);
    expect(parseJson(r.stdout.trim())).toMatchObject({ line: 1, status: 'would_create' });
    expect(r.stderr.split('\n').filter((l) => l.startsWith('error:') || l.includes('--resume'))).toEqual([
      expect.stringMatching(/^error: stdout was closed \(its reader exited\): the dry run stopped after listing \d+ of 200000 records$/),
    ]);
    expect(created('dryhead')).toBe(0);
  });

  it('with --results and -o table into a reader that leaves at once: the run completes, exit 0, the results file holds every pet created', async () => {
    const results = join(t.dir, 'table-results.ndjson');
    const r = await piped(['pets', 'add', '--file', input('table', 300), '--results', results, '-o', 'table'], READ_NOTHING);
    noStack(r.stderr);
    expect(r.exitCode, r.stderr).toBe(0);
    const lines = readFileSync(results, 'utf8').trimEnd().split('\n');
    expect(lines.filter((l) => l.includes('"status":"created"'))).toHaveLength(created('table'));
    expect(created('table')).toBe(300);
  });
});

describe.skipIf(missingTool('/dev/full', existsSync('/dev/full')))('a stdout on a full disk', () => {
  it('results on stdout > /dev/full: sending stops, exit 1, one line naming stdout and ENOSPC, no stack trace', async () => {
    const r = await shell(['pets', 'add', '--file', input('devfull', 2000)], '> /dev/full');
    noStack(r.stderr);
    expect(r.exitCode, r.stderr).toBe(1);
    expect(r.stderr.split('\n').filter((l) => l.startsWith('error:'))).toEqual([
      expect.stringMatching(/^error: cannot write the results to stdout: no space left on the device \(ENOSPC\); stopped sending after \d+ of 2000 records/),
    ]);
    expect(created('devfull')).toBeLessThan(200);
  });

  it('`--dry-run > /dev/full`: exit 1, one line naming ENOSPC and saying the dry run stopped, no continuation', async () => {
    const r = await shell(['pets', 'add', '--file', input('dryfull', 2000), '--dry-run'], '> /dev/full');
    noStack(r.stderr);
    expect(r.exitCode, r.stderr).toBe(1);
    expect(r.stderr.split('\n').filter((l) => l.startsWith('error:') || l.includes('--resume'))).toEqual([
      expect.stringMatching(
        /^error: cannot write the results to stdout: no space left on the device \(ENOSPC\); the dry run stopped after listing \d+ of 2000 records$/,
      ),
    ]);
  });
});
