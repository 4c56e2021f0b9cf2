// The seeding journal as a user meets it (issue #14): the default journal named on stderr, a rerun
// that must say --resume, the printed continue command run literally, --report in input order, the
// lock against two runs on one journal, a journal of another server, an input edited after a run on
// it stopped, and the flag combinations that make no sense.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJson } from '../../src/json/int64.js';
import { startSandbox } from '../helpers/sandbox.js';
import type { CliResult } from '../helpers/cli.js';
import { E2E_KEY, e2e, type E2E } from '../helpers/e2e.js';
import { expectedNames, storedNames } from '../helpers/seeding.js';
import { hasScript, runOnPty } from '../helpers/pty.js';

let t: E2E;
beforeAll(async () => {
  t = await e2e();
});
afterAll(() => t.close());

const seed = (args: string[]) => t.cli(['pets', 'add', ...args], { env: { PETSTORE_ENV: 'staging' } });

function input(name: string, n: number, prefix: string): string {
  const path = join(t.dir, name);
  writeFileSync(path, Array.from({ length: n }, (_, i) => `{"name":"${prefix}-${i + 1}","categoryId":${i + 1}}\n`).join(''));
  return path;
}

const stored = (prefix: string) => storedNames(t.sb, prefix);
const names = expectedNames;
const journalOf = (r: CliResult) => /^journal: (.+)$/m.exec(r.stderr)?.[1] as string;
const errorLine = (r: CliResult) => r.stderr.split('\n').find((l) => l.startsWith('error:')) ?? '';

/** Runs a command line printed by the CLI, as a user pasting it into a shell would. */
function paste(command: string): CliResult {
  const r = spawnSync('bash', ['-c', `petstore() { "$NODE" "$BIN" "$@"; }; ${command}`], {
    env: {
      PATH: process.env.PATH,
      HOME: t.dir,
      NODE: process.execPath,
      BIN: join(import.meta.dirname, '../../bin/petstore'),
      PETSTORE_CONFIG_DIR: t.configDir,
      PETSTORE_STATE_DIR: join(t.dir, 'state'),
      PETSTORE_BASE_URL: t.sb.baseUrl,
      PETSTORE_API_KEY: E2E_KEY,
      PETSTORE_ENV: 'staging',
    },
    encoding: 'utf8',
    cwd: t.dir,
  });
  return { stdout: r.stdout, stderr: r.stderr, exitCode: r.status ?? -1 };
}

describe('the default journal', () => {
  it('is named on stderr; a rerun without --resume is refused with the command that continues, and that command, pasted, sends nothing twice', async () => {
    const file = input('my pets.ndjson', 5, 'dflt');
    const first = await seed(['--file', file]);
    expect(first.exitCode, first.stderr).toBe(0);
    const journal = journalOf(first);
    expect(journal).toMatch(new RegExp(`^${join(t.dir, 'state', 'journals')}/my_pets\\.ndjson\\.[0-9a-f]{12}\\.[0-9a-f]{12}\\.ndjson$`));
    expect(readFileSync(journal, 'utf8')).toContain('"status":"created"');

    const sent = t.sb.requests().length;
    const again = await seed(['--file', file]);
    expect(again.exitCode).toBe(2);
    expect(errorLine(again)).toContain(`a journal holding records (created 5: ${journal})`);
    const command = /continue it with: (.+) \(or remove it/.exec(errorLine(again))?.[1] as string;
    // A file name with a space is quoted for the shell.
    expect(command).toBe(`petstore pets add --file '${file}' --resume --concurrency 4`);
    expect(t.sb.requests().length).toBe(sent);

    const pasted = paste(command);
    expect(pasted.exitCode, pasted.stderr).toBe(0);
    expect(pasted.stderr).toContain('created 0, failed 0, unknown 0, skipped 5, invalid 0');
    expect(t.sb.requests().length).toBe(sent);
    expect(stored('dflt')).toEqual(names('dflt', 5));
  });

  it('--resume with no journal yet starts one', async () => {
    const file = input('fresh.ndjson', 3, 'fresh');
    const r = await seed(['--file', file, '--resume']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain('nothing to resume in');
    expect(stored('fresh')).toEqual(names('fresh', 3));
  });

  it('an input edited after a run on it stopped: the rerun names the old journal; --resume <it> continues by line', async () => {
    const file = input('edited.ndjson', 3, 'edited');
    const first = await seed(['--file', file]);
    expect(first.exitCode).toBe(0);
    const journal = journalOf(first);
    // As if the run had been killed: no footer.
    writeFileSync(journal, readFileSync(journal, 'utf8').replace(/\{"finished":.*\n$/, ''));
    writeFileSync(file, `${readFileSync(file, 'utf8')}{"name":"edited-4","categoryId":4}\n`);
    const sent = t.sb.requests().length;
    const r = await seed(['--file', file]);
    expect(r.exitCode).toBe(2);
    expect(errorLine(r)).toContain(`changed since a run on it stopped (its journal: ${journal}); continue that run with --resume <journal>`);
    expect(t.sb.requests().length).toBe(sent);

    const resumed = await seed(['--file', file, '--resume', journal]);
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain('changed since the journal was started');
    expect(resumed.stderr).toContain('created 1, failed 0, unknown 0, skipped 3');
    expect(stored('edited')).toEqual(names('edited', 4));
  });
});

describe('--report', () => {
  it('prints each record once, in input order, its last outcome; a record in flight at a kill shows as unknown', async () => {
    const file = input('report.ndjson', 4, 'report');
    const journal = join(t.dir, 'report-journal.ndjson');
    // A journal as a killed run leaves it: line 3 was in flight; line 1 failed, then was created by a resume.
    writeFileSync(
      journal,
      [
        '{"line":2,"status":"sending"}',
        '{"line":1,"status":"sending"}',
        '{"line":3,"status":"sending"}',
        '{"line":2,"status":"created","pet":{"id":12,"name":"report-2","categoryId":2}}',
        '{"line":1,"status":"failed","error":{"code":"x","message":"y","status":400}}',
        '{"line":1,"status":"sending"}',
        '{"line":1,"status":"created","pet":{"id":13,"name":"report-1","categoryId":1}}',
        '',
      ].join('\n'),
    );
    const r = await seed(['--file', file, '--results', journal, '--report']);
    expect(r.exitCode, r.stderr).toBe(0);
    const lines = r.stdout
      .trimEnd()
      .split('\n')
      .map((l) => parseJson(l) as { line: number; status: string });
    expect(lines.map((l) => [l.line, l.status])).toEqual([
      [1, 'created'],
      [2, 'created'],
      [3, 'unknown'],
    ]);
    expect(r.stderr).toContain('created 2, in flight when it stopped 1');
    expect(r.stderr).toContain('the last run on it did not go through the whole input');
    expect(t.sb.requests().filter((q) => q.body.includes('report-'))).toHaveLength(0);
  });
});

describe('a journal cut by a crash mid-line', () => {
  it('--resume drops the torn last line with a warning, then appends whole lines after it', async () => {
    const file = input('torn.ndjson', 3, 'torn');
    const journal = join(t.dir, 'torn-journal.ndjson');
    writeFileSync(journal, '{"line":1,"status":"sending"}\n{"line":1,"status":"created","pet":{"id":1,"name":"torn-1","categoryId":1}}\n{"line":2,"sta');
    const r = await seed(['--file', file, '--results', journal, '--resume']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(`warning: the last line of ${journal} is incomplete (a run was killed mid-write); it is dropped`);
    expect(r.stderr).toContain('created 2, failed 0, unknown 0, skipped 1');
    const text = readFileSync(journal, 'utf8');
    expect(text).not.toContain('"sta{');
    for (const line of text.trimEnd().split('\n')) expect(() => parseJson(line)).not.toThrow();
    expect(stored('torn')).toEqual(['torn-2', 'torn-3']);
  });
});

describe('a journal that must not be used', () => {
  it('in use by a running petstore: exit 2 naming its pid; left by a process that is gone: taken over', async () => {
    const file = input('locked.ndjson', 2, 'locked');
    const journal = join(t.dir, 'locked-journal.ndjson');
    // The lock line of src/fs/lock.ts: "<pid> <host> <ms> <token>"; this test process is alive.
    const host = (await import('node:os')).hostname().replace(/\s/g, '_');
    writeFileSync(`${journal}.lock`, `${process.pid} ${host} ${Date.now()} sometoken\n`);
    const busy = await seed(['--file', file, '--results', journal]);
    expect(busy.exitCode).toBe(2);
    expect(errorLine(busy)).toContain(`is in use by another petstore (pid ${process.pid})`);
    expect(stored('locked')).toEqual([]);

    const gone = spawnSync(process.execPath, ['-e', '0']).pid as number;
    writeFileSync(`${journal}.lock`, `${gone} ${host} ${Date.now()} oldtoken\n`);
    const r = await seed(['--file', file, '--results', journal]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(stored('locked')).toEqual(names('locked', 2));
    expect(existsSync(`${journal}.lock`)).toBe(false);
  });

  it('a lock that is not a petstore lock (a folder, an empty file) is taken over at once: a petstore lock appears whole', async () => {
    const file = input('debris.ndjson', 4, 'debris');
    const journal = join(t.dir, 'debris-journal.ndjson');
    mkdirSync(`${journal}.lock`);
    const r = await seed(['--file', file, '--results', journal]);
    expect(r.exitCode, r.stderr).toBe(0);
    writeFileSync(`${journal}.lock`, '');
    const again = await seed(['--file', file, '--results', journal, '--resume']);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).toContain('created 0, failed 0, unknown 0, skipped 4');
    expect(stored('debris')).toEqual(names('debris', 4));
    expect(existsSync(`${journal}.lock`)).toBe(false);
  });

  it('kept against another server: exit 2, nothing sent', async () => {
    const file = input('other.ndjson', 2, 'other');
    const journal = join(t.dir, 'other-journal.ndjson');
    writeFileSync(
      journal,
      '{"journal":"petstore pets add","version":1,"input":"x","sha256":"y","target":"https://staging.example/v1","started":"z"}\n{"line":1,"status":"sending"}\n',
    );
    const r = await seed(['--file', file, '--results', journal, '--resume']);
    expect(r.exitCode).toBe(2);
    expect(errorLine(r)).toContain(`is the journal of a run against https://staging.example/v1, but this run sends to ${t.sb.baseUrl}`);
    expect(stored('other')).toEqual([]);
  });

  it('--dry-run with --results, and --retry-unknown without --resume: exit 2, one line each', async () => {
    const file = input('flags.ndjson', 1, 'flags');
    const dry = await seed(['--file', file, '--dry-run', '--results', join(t.dir, 'x.ndjson')]);
    expect(dry.exitCode).toBe(2);
    expect(errorLine(dry)).toContain('--dry-run sends nothing, so it keeps no journal');
    const retry = await seed(['--file', file, '--retry-unknown']);
    expect(retry.exitCode).toBe(2);
    expect(errorLine(retry)).toContain('--retry-unknown needs --resume');
    expect(stored('flags')).toEqual([]);
  });
});

describe.skipIf(!hasScript)('on a terminal', () => {
  it('Ctrl-C while the rate limiter waits: exit 130 with the continue command; that command finishes the job, each record once', async () => {
    const sb = await startSandbox({ keys: [E2E_KEY], perMinute: 10, perDay: 10_000_000, windowMs: 2000 });
    try {
      const file = input('pty.ndjson', 30, 'pty');
      const journal = join(t.dir, 'pty-journal.ndjson');
      const env = {
        PETSTORE_CONFIG_DIR: join(t.dir, 'pty-cfg'),
        PETSTORE_STATE_DIR: join(t.dir, 'pty-state'),
        PETSTORE_BASE_URL: sb.baseUrl,
        PETSTORE_API_KEY: E2E_KEY,
        PETSTORE_ENV: 'staging',
        HOME: t.dir,
      };
      // The limit binds after 10 records: the run then waits for the window, and Ctrl-C comes during that wait.
      const r = await runOnPty(['pets', 'add', '--file', file, '--results', journal], { env, steps: [{ waitFor: 'waiting', type: '\x03' }] });
      expect(r.exitCode, r.output).toBe(130);
      const continueWith = /continue with: (.+)$/m.exec(r.output.replaceAll(/\s*\n(?=\S)/g, ' '))?.[1] ?? '';
      expect(continueWith).toContain(`petstore pets add --file ${file} --results ${journal} --resume`);
      const created = sb.pets().filter((p) => p.name.startsWith('pty-')).length;
      expect(created).toBeGreaterThan(0);
      expect(created).toBeLessThan(30);
      const text = readFileSync(journal, 'utf8');
      expect(text.endsWith('\n')).toBe(true);
      expect(text.split('\n').filter((l) => l.includes('"status":"created"'))).toHaveLength(created);

      const again = await t.cli(['pets', 'add', '--file', file, '--results', journal, '--resume'], { env: { ...env }, timeoutMs: 30_000 });
      expect(again.exitCode, again.stderr).toBe(0);
      expect(
        sb
          .pets()
          .map((p) => p.name)
          .filter((n) => n.startsWith('pty-'))
          .sort(),
      ).toEqual(names('pty', 30));
    } finally {
      await sb.close();
    }
  }, 40_000);
});
