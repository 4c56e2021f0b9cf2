// docs/seeding.md "A CI job that seeds staging": the ```sh block, taken literally from that page, run with bash
// as a CI job would run it: `petstore` on PATH, the key and the base URL in the environment,
// fixtures/pets.csv in the job's folder, against a fresh sandbox. A runner that times out sends
// SIGTERM to the job's whole process group: the job fails (petstore exits 143 under set -e), and
// the same script run again finishes the seeding with each record created once. A run that is not
// interrupted creates each record once, and running the script again creates nothing.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { CI_SEED_RECIPE } from '../../src/help/topics.js';
import { startSandbox } from '../helpers/sandbox.js';
import type { SandboxHandle } from '../../src/sandbox/server.js';
import { tempDir } from '../helpers/cli.js';
import { linesWith, petstoreOnPath, readJournalNow, seedRecords, storedByName, until, writeCsv, type SeedRecord } from '../helpers/seeding.js';

const KEY = 'sk_ci_recipe_key_93b1e07c5d2a';
const N = 300;

/** The documented block, exactly as written in docs/seeding.md. */
function recipe(): string {
  const page = readFileSync(new URL('../../docs/seeding.md', import.meta.url), 'utf8');
  const heading = page.indexOf('\n## A CI job that seeds staging\n');
  expect(heading, 'the docs/seeding.md section "A CI job that seeds staging"').toBeGreaterThan(0);
  const block = /\n```sh\n([\s\S]*?)\n```\n/.exec(page.slice(heading));
  expect(block, 'a ```sh block in that section').not.toBeNull();
  return `${block?.[1]}\n`;
}

const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

interface Job {
  sb: SandboxHandle;
  /** The job's working folder: fixtures/pets.csv, the script, the journal. */
  cwd: string;
  records: SeedRecord[];
  journal: string;
  /** Starts the script (the recipe, or the given text) with bash in its own process group, as a CI runner starts a job. */
  start(text?: string): ReturnType<typeof execa>;
}

async function job(prefix: string): Promise<Job> {
  // A little latency: 300 records take a moment however fast the machine, so the SIGTERM lands mid-run.
  const sb = await startSandbox({ keys: [KEY], perMinute: 1_000_000, perDay: 100_000_000, latencyMs: 3 });
  cleanups.push(() => sb.close());
  const tmp = tempDir(`petstore-ci-${prefix}-`);
  cleanups.push(tmp.cleanup);
  const cwd = join(tmp.dir, 'job');
  mkdirSync(join(cwd, 'fixtures'), { recursive: true });
  const records = seedRecords(prefix, N);
  writeCsv(join(cwd, 'fixtures', 'pets.csv'), records);
  const script = join(tmp.dir, 'seed-staging.sh');
  writeFileSync(script, recipe());
  const pathDir = petstoreOnPath(tmp.dir);
  return {
    sb,
    cwd,
    records,
    journal: join(cwd, 'seed-journal.ndjson'),
    start: (text?: string) =>
      execa('bash', text === undefined ? [script] : ['-c', text], {
        cwd,
        detached: true,
        env: {
          PATH: `${pathDir}:${process.env.PATH}`,
          HOME: tmp.dir,
          STAGING_PETSTORE_KEY: KEY,
          PETSTORE_BASE_URL: sb.baseUrl,
          PETSTORE_CONFIG_DIR: join(tmp.dir, 'config'),
          PETSTORE_STATE_DIR: join(tmp.dir, 'state'),
        },
        extendEnv: false,
        reject: false,
        stdin: 'ignore',
        timeout: 25_000,
      }),
  };
}

function expectEachOnce(j: Job): void {
  const stored = storedByName(j.sb);
  expect(j.records.filter((r) => stored.get(r.name) !== 1).map((r) => `${r.name}×${stored.get(r.name) ?? 0}`)).toEqual([]);
  expect(j.sb.pets()).toHaveLength(N);
}

const summary = (stderr: string) => /^created (\d+), failed (\d+), unknown (\d+), skipped (\d+), invalid (\d+) in /m.exec(stderr)?.slice(1).map(Number);

describe.concurrent('the docs/seeding.md recipe "A CI job that seeds staging", run with bash', () => {
  it('stopped by SIGTERM to its process group mid-run: the job fails; run again, it completes with each record once; a third run creates nothing', async () => {
    const j = await job('ci-term');
    const first = j.start();
    let ended = false;
    void first.then(() => {
      ended = true;
    });
    await until('progress in seed-journal.ndjson', () => {
      if (ended) throw new Error('the job ended before it was stopped');
      return readJournalNow(j.journal).outcomes >= 30;
    });
    // What a CI runner does on a timeout: SIGTERM to the job's whole process group.
    process.kill(-(first.pid as number), 'SIGTERM');
    const r = await first;
    // bash itself is ended by the SIGTERM (a shell reports 143, 128 + 15); petstore winds down and exits 143.
    expect(r.exitCode === 143 || r.signal === 'SIGTERM', `exit ${r.exitCode}, signal ${r.signal}`).toBe(true);
    const stderr = String(r.stderr);
    expect(stderr).toMatch(
      /^error: interrupted after \d+ of 300 records; continue with: petstore pets add --file fixtures\/pets\.csv --results seed-journal\.ndjson --resume --concurrency 8$/m,
    );
    // petstore has ended (it holds the journal's lock while it runs).
    await until('petstore to end', () => !existsSync(`${j.journal}.lock`));
    const stopped = readJournalNow(j.journal);
    expect(linesWith(stopped, 'sending')).toEqual([]);
    expect(stopped.outcomes).toBeLessThan(N);
    expect(j.sb.pets()).toHaveLength(linesWith(stopped, 'created').length);

    // The wind-down let the requests in flight finish: nothing is unknown, so the rerun ends with exit 0.
    const second = await j.start();
    expect(second.exitCode, String(second.stderr)).toBe(0);
    const created = linesWith(stopped, 'created').length;
    expect(summary(String(second.stderr))).toEqual([N - created, 0, 0, created, 0]);
    expectEachOnce(j);

    const third = await j.start();
    expect(third.exitCode, String(third.stderr)).toBe(0);
    expect(summary(String(third.stderr))).toEqual([0, 0, 0, N, 0]);
    expectEachOnce(j);
  });

  it('not interrupted: exit 0, each record once; run again, it creates nothing (all skipped), exit 0', async () => {
    const j = await job('ci-once');
    const first = await j.start();
    expect(first.exitCode, String(first.stderr)).toBe(0);
    expect(summary(String(first.stderr))).toEqual([N, 0, 0, 0, 0]);
    expect(String(first.stdout)).toBe('');
    expectEachOnce(j);
    const requests = j.sb.requests().length;

    const again = await j.start();
    expect(again.exitCode, String(again.stderr)).toBe(0);
    expect(summary(String(again.stderr))).toEqual([0, 0, 0, N, 0]);
    expect(j.sb.requests()).toHaveLength(requests);
    expectEachOnce(j);
  });

  it("the recipe's check line (--dry-run --quiet > /dev/null) on good data: exit 0 and nothing on stderr, as --quiet promises", async () => {
    const j = await job('ci-check');
    // The recipe up to its check line, as written.
    const lines = recipe().split('\n');
    const check = lines.findIndex((l) => l.includes('--dry-run'));
    expect(check).toBeGreaterThan(0);
    const r = await j.start(`${lines.slice(0, check + 1).join('\n')}\n`);
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(String(r.stdout)).toBe('');
    expect(String(r.stderr)).toBe('');
    expect(j.sb.requests()).toEqual([]);
  });
});

describe('petstore help ci', () => {
  it('shows this recipe, word for word', () => {
    expect(CI_SEED_RECIPE).toBe(recipe());
  });
});
