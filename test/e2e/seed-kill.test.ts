// A seeding run (`pets add --file`) stopped the hard way, then continued with --resume, as a user
// would: real processes, real signals, a real sandbox on an ephemeral port (one per test). kill -9
// early, midway, during the resume itself, and while one slow record (held by a proxy) keeps its
// line in flight as later records complete; SIGTERM, SIGINT and SIGHUP, whose message names the
// command to continue (run here literally, through `petstore` on PATH); and a reader that leaves
// early (`| head -1`). Each time: the server holds every record exactly once, except records the
// resume reports `unknown` (in flight at the kill), which the test then checks on the server and
// settles as a user would (see settleUnknown: --retry-unknown only when every unknown record is
// missing). Kills are timed by polling the journal (and a proxy's count of held requests), never by
// sleeps; nothing asserts on time.
import { existsSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../helpers/sandbox.js';
import type { SandboxHandle } from '../../src/sandbox/server.js';
import { spawnCli, tempDir } from '../helpers/cli.js';
import {
  bash,
  linesWith,
  petstoreOnPath,
  readJournalNow,
  resultLines,
  seedRecords,
  startHoldingProxy,
  storedByName,
  until,
  writeNdjson,
  type HoldingProxy,
  type JournalLine,
  type JournalView,
  type SeedRecord,
} from '../helpers/seeding.js';

const KEY = 'sk_seed_kill_key_4f8a2c9e1b7d';
const N = 300;
const CONCURRENCY = 4;

const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

interface World {
  sb: SandboxHandle;
  proxy: HoldingProxy | undefined;
  dir: string;
  file: string;
  records: SeedRecord[];
  /** Where --results goes, when a test uses it. */
  results: string;
  /** Folder with `petstore` (the built CLI on this Node). */
  pathDir: string;
  env: Record<string, string>;
}

/**
 * A fresh sandbox (limits far away; latencyMs so that 300 records take a moment even on an idle
 * machine: the kill lands mid-run however loaded the machine is, since this process serves both the
 * sandbox and the polling), optionally behind a holding proxy, and 300 records.
 */
async function world(prefix: string, opts: { latencyMs?: number; proxy?: boolean; n?: number; perMinute?: number; windowMs?: number } = {}): Promise<World> {
  const sb = await startSandbox({
    keys: [KEY],
    perMinute: opts.perMinute ?? 1_000_000,
    perDay: 100_000_000,
    latencyMs: opts.latencyMs ?? 3,
    ...(opts.windowMs ? { windowMs: opts.windowMs } : {}),
  });
  cleanups.push(() => sb.close());
  const proxy = opts.proxy ? await startHoldingProxy(sb.url) : undefined;
  if (proxy) cleanups.push(() => proxy.close());
  const tmp = tempDir(`petstore-kill-${prefix}-`);
  cleanups.push(tmp.cleanup);
  const records = seedRecords(prefix, opts.n ?? N);
  return {
    sb,
    proxy,
    dir: tmp.dir,
    file: writeNdjson(join(tmp.dir, `${prefix}.ndjson`), records),
    records,
    results: join(tmp.dir, 'journal.ndjson'),
    pathDir: petstoreOnPath(tmp.dir),
    env: {
      HOME: tmp.dir,
      PETSTORE_CONFIG_DIR: join(tmp.dir, 'petstore'),
      PETSTORE_STATE_DIR: join(tmp.dir, 'state'),
      PETSTORE_BASE_URL: proxy?.baseUrl ?? sb.baseUrl,
      PETSTORE_API_KEY: KEY,
      PETSTORE_ENV: 'staging',
    },
  };
}

type JournalKind = 'results' | 'default';

/** The command a user types (and the CLI names) to continue the run. */
function continueCommand(w: World, kind: JournalKind): string {
  return kind === 'results'
    ? `petstore pets add --file ${w.file} --results ${w.results} --resume --concurrency ${CONCURRENCY}`
    : `petstore pets add --file ${w.file} --resume --concurrency ${CONCURRENCY}`;
}

const sh = (w: World, command: string) => bash(command, { pathDir: w.pathDir, env: w.env });

interface Started {
  child: ReturnType<typeof spawnCli>;
  journal: string;
  /** What the run printed on stderr so far. */
  stderr: () => string;
}

/** Starts `pets add --file` (the built CLI, its own process); resolves once its journal's path is known. */
async function start(w: World, kind: JournalKind): Promise<Started> {
  const args = ['pets', 'add', '--file', w.file, '--concurrency', String(CONCURRENCY), ...(kind === 'results' ? ['--results', w.results] : [])];
  const child = spawnCli(args, { configDir: w.dir, env: w.env });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  let ended = false;
  void child.then(() => {
    ended = true;
  });
  const alive = (what: string) => {
    if (ended) throw new Error(`the run ended before ${what}: ${stderr}`);
  };
  const journal =
    kind === 'results'
      ? w.results
      : await until('the journal path on stderr', () => {
          alive('it named its journal');
          return /^journal: (.+)$/m.exec(stderr)?.[1];
        });
  if (kind === 'default') expect(journal.startsWith(join(w.dir, 'state', 'journals'))).toBe(true);
  const seen = () => {
    alive('the test stopped it');
    return stderr;
  };
  return { child, journal, stderr: seen };
}

/** Waits until the journal shows what `ready` wants (the run still going), then sends the signal. */
async function stopWhen(s: Started, ready: (v: JournalView) => boolean, signal: NodeJS.Signals) {
  await until('progress in the journal', () => {
    s.stderr();
    return ready(readJournalNow(s.journal));
  });
  s.child.kill(signal);
  const r = await s.child;
  return { exitCode: r.exitCode, signal: r.signal, stderr: String(r.stderr), stdout: String(r.stdout) };
}

/**
 * After a run stopped: what the server stores agrees with the journal. A record the journal says
 * created is stored once; one it shows in flight (`sending`, no outcome) at most once; any other
 * record not at all (nothing was sent without its `sending` line, nothing created was lost).
 */
function expectServerMatchesJournal(w: World, view: JournalView): void {
  const stored = storedByName(w.sb);
  for (const r of w.records) {
    const word = view.lastWord.get(r.line);
    const count = stored.get(r.name) ?? 0;
    if (word === 'created') expect(count, r.name).toBe(1);
    else if (word === 'sending' || word === 'unknown') expect(count, r.name).toBeLessThanOrEqual(1);
    else expect(count, `${r.name} (journal: ${word})`).toBe(0);
  }
}

/** Every record once on the server, and nothing else with the prefix. */
function expectEachOnce(w: World): void {
  const stored = storedByName(w.sb);
  const wrong = w.records.filter((r) => stored.get(r.name) !== 1).map((r) => `${r.name}×${stored.get(r.name) ?? 0}`);
  expect(wrong).toEqual([]);
  expect(w.sb.pets()).toHaveLength(w.records.length);
}

/** Every record once, except the unknown ones: at most once (never twice). */
function expectOnceExceptUnknown(w: World, unknownLines: number[]): void {
  const stored = storedByName(w.sb);
  const unknown = new Set(unknownLines);
  for (const r of w.records) {
    const count = stored.get(r.name) ?? 0;
    if (unknown.has(r.line)) expect(count, r.name).toBeLessThanOrEqual(1);
    else expect(count, r.name).toBe(1);
  }
}

const errorLines = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('error:'));
const noStack = (stderr: string) => expect(stderr).not.toMatch(/\n\s+at |^\s+at |unexpected error|Node\.js v/m);

/** Until the sandbox has nothing in flight and has received nothing for 150 ms (at most a few seconds). */
async function sandboxQuiet(w: World): Promise<void> {
  let count = -1;
  let stableSince = Date.now();
  const deadline = Date.now() + 5000;
  while (Date.now() < deadline) {
    const now = w.sb.requests().length;
    if (now !== count || w.sb.stats().inFlight > 0) {
      count = now;
      stableSince = Date.now();
    } else if (Date.now() - stableSince >= 150) return;
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * Rerunning the first command without --resume is refused (exit 2, nothing sent), naming the exact
 * command that continues; returns that command as printed.
 */
async function refusedWithoutResume(w: World, kind: JournalKind): Promise<string> {
  // Requests of the killed run may still reach the sandbox (written to the socket just before the
  // kill): wait until it has been idle a moment, then count only those that arrive from here on.
  await sandboxQuiet(w);
  const since = Date.now();
  const first = `petstore pets add --file ${w.file} --concurrency ${CONCURRENCY}${kind === 'results' ? ` --results ${w.results}` : ''}`;
  const r = await sh(w, first);
  expect(r.exitCode, r.stderr).toBe(2);
  const [line] = errorLines(r.stderr);
  const named = / continue it with: (.+) \(or remove it to send every record again\)$/.exec(line ?? '')?.[1];
  expect(named, r.stderr).toBe(continueCommand(w, kind));
  expect(w.sb.requests().filter((q) => q.time >= since)).toEqual([]);
  return named as string;
}

/**
 * Runs the continue command (as printed) after a kill -9 and checks what it reports: every record
 * in flight at a kill (or unknown since an earlier one), and only those, reported `unknown` in its
 * results (stdout with the default journal; with --results, the journal it continues, where a record
 * is unknown once and stays so), exit 3 when there are any (else 0), every other record once on the
 * server. Returns the unknown records as the results list them.
 */
async function resumeAfterKill(w: World, kind: JournalKind, command: string, journal: string, killed: JournalView): Promise<JournalLine[]> {
  const expected = [...linesWith(killed, 'sending'), ...linesWith(killed, 'unknown')].sort((a, b) => a - b);
  const r = await sh(w, command);
  noStack(r.stderr);
  expect(r.exitCode, r.stderr).toBe(expected.length > 0 ? 3 : 0);
  let unknown: JournalLine[];
  if (kind === 'results') {
    expect(r.stdout).toBe('');
    // What the resume added: an `unknown` line for each record that was in flight, nothing for those already unknown.
    expect(
      resultLines(appendedSince(journal, killed.bytes))
        .filter((l) => l.status === 'unknown')
        .map((l) => l.line),
    ).toEqual(expect.arrayContaining(linesWith(killed, 'sending')));
    const last = new Map<number, JournalLine>();
    for (const e of readJournalNow(journal).entries) if (e.line !== undefined) last.set(e.line, e);
    unknown = [...last.values()].filter((l) => l.status === 'unknown');
  } else {
    unknown = resultLines(r.stdout).filter((l) => l.status === 'unknown');
  }
  expect(unknown.map((l) => l.line as number).sort((a, b) => a - b)).toEqual(expected);
  for (const u of unknown) expect(u.record?.name).toBe(w.records[(u.line as number) - 1]?.name);
  expect(r.stderr).toMatch(
    new RegExp(`^created \\d+, failed 0, unknown ${expected.length}, skipped ${linesWith(killed, 'created').length}, invalid 0 in `, 'm'),
  );
  expect(errorLines(r.stderr)).toEqual(
    expected.length > 0
      ? [
          `error: ${expected.length} of ${w.records.length} records were not created (failed 0, unknown ${expected.length}, invalid 0); see the results; unknown at ${expected.length === 1 ? 'line' : 'lines'} ${expected.join(', ')}: check whether they exist, and send the missing ones with --resume --retry-unknown <lines>`,
        ]
      : [],
  );
  expectOnceExceptUnknown(w, expected);
  expect(readJournalNow(journal).entries.at(-1)?.finished).toEqual(expect.any(String));
  return unknown;
}

/** What was appended to a file after its first `bytes` bytes. */
const appendedSince = (path: string, bytes: number) => readFileSync(path).subarray(bytes).toString('utf8');

/**
 * What docs/seeding.md tells a user to do with records reported unknown: check the server for each.
 * All missing: rerun with --retry-unknown (which resends every unknown record). All there: nothing
 * to send. Some there, some not: --retry-unknown with the missing ones' line numbers sends only
 * those. Afterwards every record is on the server once.
 */
async function settleUnknown(w: World, command: string, unknown: JournalLine[]): Promise<'none' | 'retry-unknown' | 'by line' | 'nothing missing'> {
  if (unknown.length === 0) return 'none';
  // A request of a killed run could still be on its way through the sandbox: look once it is idle.
  await until('the sandbox to be idle', () => w.sb.stats().inFlight === 0);
  const stored = storedByName(w.sb);
  const missing = unknown.filter((u) => (stored.get(u.record?.name as string) ?? 0) === 0);
  let how: 'retry-unknown' | 'by line' | 'nothing missing';
  if (missing.length === 0) {
    how = 'nothing missing';
  } else if (missing.length === unknown.length) {
    how = 'retry-unknown';
    const r = await sh(w, `${command} --retry-unknown`);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`^created ${unknown.length}, failed 0, unknown 0, skipped ${w.records.length - unknown.length}, invalid 0 in `, 'm'));
  } else {
    how = 'by line';
    const r = await sh(w, `${command} --retry-unknown ${missing.map((m) => m.line).join(',')}`);
    // The ones found there stay unknown (exit 3): they were checked and are not sent again.
    expect(r.exitCode, r.stderr).toBe(3);
    expect(r.stderr).toMatch(new RegExp(`^created ${missing.length}, failed 0, unknown ${unknown.length - missing.length}, `, 'm'));
  }
  expectEachOnce(w);
  return how;
}

/** The user story after a kill -9: (refused without --resume,) resumed, unknowns checked and settled. */
async function afterKill9(w: World, kind: JournalKind, journal: string, opts: { refusal: boolean }) {
  const killed = readJournalNow(journal);
  if (killed.entries.length > 0) expect(killed.entries[0]).toMatchObject({ journal: 'petstore pets add', target: w.env.PETSTORE_BASE_URL });
  expectServerMatchesJournal(w, killed);
  const command = opts.refusal ? await refusedWithoutResume(w, kind) : continueCommand(w, kind);
  const unknown = await resumeAfterKill(w, kind, command, journal, killed);
  return { killed, unknown, settled: await settleUnknown(w, command, unknown) };
}

/**
 * A run whose record at `index` is held by the proxy while the others flow, returned once at least
 * `later` records after it have their outcome journaled and it is still `sending`.
 */
async function startWithOneHeld(prefix: string, index: number, later: number) {
  const w = await world(prefix, { latencyMs: 2, proxy: true });
  const proxy = w.proxy as HoldingProxy;
  const slow = w.records[index] as SeedRecord;
  proxy.holdName(slow.name);
  const s = await start(w, 'results');
  await until('later records to complete while the slow one is held', () => {
    s.stderr();
    const v = readJournalNow(s.journal);
    const done = [...v.lastWord].filter(([line, word]) => line > slow.line && word !== 'sending').length;
    return v.lastWord.get(slow.line) === 'sending' && done >= later;
  });
  return { w, proxy, slow, s };
}

describe.concurrent('kill -9, then the same command with --resume', () => {
  it('early (the first outcomes), --results: every record once, the records in flight reported unknown and settled', async () => {
    const w = await world('early');
    const s = await start(w, 'results');
    const r = await stopWhen(s, (v) => v.outcomes >= 1, 'SIGKILL');
    // 137 in a shell: 128 + SIGKILL, the kill itself.
    expect(r.signal).toBe('SIGKILL');
    const { killed } = await afterKill9(w, 'results', s.journal, { refusal: true });
    expect(killed.outcomes).toBeLessThan(N);
  });

  it('midway, the default journal (no --results): every record once, the records in flight reported unknown and settled', async () => {
    const w = await world('midway');
    const s = await start(w, 'default');
    const r = await stopWhen(s, (v) => v.outcomes >= N / 2, 'SIGKILL');
    expect(r.signal).toBe('SIGKILL');
    const { killed } = await afterKill9(w, 'default', s.journal, { refusal: true });
    expect(killed.outcomes).toBeLessThan(N);
  });

  it('at the very start (the journal just made, nothing or next to nothing sent): --resume sends every record once', async () => {
    const w = await world('start');
    const s = await start(w, 'results');
    await until('the journal file', () => {
      s.stderr();
      return existsSync(w.results);
    });
    s.child.kill('SIGKILL');
    expect((await s.child).signal).toBe('SIGKILL');
    const { unknown } = await afterKill9(w, 'results', w.results, { refusal: false });
    expect(unknown.length).toBeLessThanOrEqual(CONCURRENCY);
    expectEachOnce(w);
  });

  it('its residue when the kill lands between creating the lock file and writing the pid into it (an empty lock, left a minute ago): --resume continues', async () => {
    // What the test above leaves about one run in ten: the journal (empty here) and an empty
    // journal.ndjson.lock, whose process is long gone. Made here directly, so the case is certain.
    const w = await world('empty-lock');
    writeFileSync(w.results, '');
    writeFileSync(`${w.results}.lock`, '');
    const aMinuteAgo = new Date(Date.now() - 60_000);
    utimesSync(`${w.results}.lock`, aMinuteAgo, aMinuteAgo);
    const r = await sh(w, continueCommand(w, 'results'));
    expect(errorLines(r.stderr)).toEqual([]);
    expect(r.exitCode, r.stderr).toBe(0);
    expectEachOnce(w);
  });

  it.runIf(process.platform === 'linux')(
    'midway, a run its parent never reaps (a zombie: the job of a shell that went on to something else): its lock is no obstacle, --resume continues',
    async () => {
      const w = await world('zombie');
      const run = `petstore pets add --file ${w.file} --concurrency ${CONCURRENCY} --results ${w.results}`;
      const parent = execa('bash', ['-c', `${run} 2>/dev/null & echo $!; exec sleep 60`], {
        env: { PATH: `${w.pathDir}:${process.env.PATH}`, ...w.env },
        extendEnv: false,
        reject: false,
        stdin: 'ignore',
      });
      cleanups.push(() => void parent.kill('SIGKILL'));
      const pid = await new Promise<number>((resolve) => parent.stdout?.once('data', (d: Buffer) => resolve(Number(String(d).trim()))));
      await until('progress in the journal', () => existsSync(w.results) && readJournalNow(w.results).outcomes >= N / 2);
      process.kill(pid, 'SIGKILL');
      await until('the run to be a zombie', () => readFileSync(`/proc/${pid}/stat`, 'latin1').split(') ')[1]?.startsWith('Z'));
      expect(existsSync(`${w.results}.lock`)).toBe(true);
      const { killed } = await afterKill9(w, 'results', w.results, { refusal: true });
      expect(killed.outcomes).toBeLessThan(N);
    },
  );

  it('early, then the resume itself killed midway, then --resume again: every record once', async () => {
    const w = await world('twice');
    const s = await start(w, 'results');
    expect((await stopWhen(s, (v) => v.outcomes >= 10, 'SIGKILL')).signal).toBe('SIGKILL');
    const first = readJournalNow(w.results);
    expectServerMatchesJournal(w, first);
    const firstInFlight = linesWith(first, 'sending');

    // The resume, killed in turn once it has added a hundred outcomes of its own.
    const resume = spawnCli(['pets', 'add', '--file', w.file, '--results', w.results, '--resume', '--concurrency', String(CONCURRENCY)], {
      configDir: w.dir,
      env: w.env,
    });
    let ended = false;
    void resume.then(() => {
      ended = true;
    });
    await until('the resume to progress', () => {
      if (ended) throw new Error('the resume ended before it was killed');
      return readJournalNow(w.results).outcomes >= first.outcomes + 100;
    });
    resume.kill('SIGKILL');
    const rr = await resume;
    expect(rr.signal, String(rr.stderr)).toBe('SIGKILL');
    const second = readJournalNow(w.results);
    expectServerMatchesJournal(w, second);
    // The records in flight at the first kill stay unknown: the resume never sent them.
    for (const line of firstInFlight) expect(second.lastWord.get(line), `line ${line}`).toBe('unknown');

    const command = continueCommand(w, 'results');
    const unknown = await resumeAfterKill(w, 'results', command, w.results, second);
    await settleUnknown(w, command, unknown);
  });

  /**
   * One record's POST held by the proxy while the others flow: its line stays `sending` as later
   * lines complete (the journal is in completion order). Then every new request is held too, so that
   * at the kill all the requests in flight are in the proxy and none at the sandbox.
   */
  async function killWhileHeld(prefix: string) {
    const { w, proxy, slow, s } = await startWithOneHeld(prefix, 19, 100);
    proxy.holdEverything();
    await until('every request in flight to be held', () => {
      s.stderr();
      return proxy.held().length === CONCURRENCY && proxy.forwarding() === 0;
    });
    s.child.kill('SIGKILL');
    expect((await s.child).signal).toBe('SIGKILL');
    const killed = readJournalNow(s.journal);
    const heldLines = proxy
      .held()
      .map((name) => w.records.find((r) => r.name === name)?.line)
      .sort((a, b) => (a as number) - (b as number));
    expect(heldLines).toContain(slow.line);
    expect(linesWith(killed, 'sending')).toEqual(heldLines);
    // The journal already holds the outcomes of records after the held one.
    expect(linesWith(killed, 'created').filter((l) => l > slow.line).length).toBeGreaterThanOrEqual(100);
    return { w, proxy, killed, heldLines };
  }

  it('while one slow record holds others back, and the held requests never reach the server: reported unknown, found missing, sent with --retry-unknown', async () => {
    const { w, proxy, killed, heldLines } = await killWhileHeld('held-lost');
    await proxy.release('drop');
    expectServerMatchesJournal(w, killed);
    for (const line of heldLines) expect(storedByName(w.sb).get(w.records[(line as number) - 1]?.name as string)).toBeUndefined();
    const { unknown, settled } = await afterKill9(w, 'results', w.results, { refusal: false });
    expect(unknown).toHaveLength(CONCURRENCY);
    expect(settled).toBe('retry-unknown');
  });

  it('while one slow record holds others back, and the server processes the held requests after the client died: reported unknown, found there, not resent', async () => {
    const { w, proxy, killed, heldLines } = await killWhileHeld('held-late');
    await proxy.release('forward');
    for (const line of heldLines) expect(storedByName(w.sb).get(w.records[(line as number) - 1]?.name as string)).toBe(1);
    const { unknown, settled } = await afterKill9(w, 'results', w.results, { refusal: false });
    expect(killed.outcomes).toBeLessThan(N);
    expect(unknown).toHaveLength(CONCURRENCY);
    expect(settled).toBe('nothing missing');
    // A later resume still reports them unknown, and still does not send them.
    const again = await sh(w, continueCommand(w, 'results'));
    expect(again.exitCode, again.stderr).toBe(3);
    expect(again.stderr).toMatch(new RegExp(`^created 0, failed 0, unknown ${CONCURRENCY}, skipped ${N - CONCURRENCY}, invalid 0 in `, 'm'));
    expectEachOnce(w);
  });
});

describe.concurrent('SIGTERM, SIGINT, SIGHUP: the message names the command that continues, and that command works as printed', () => {
  it.each([
    ['SIGTERM', 143, 'results'],
    ['SIGINT', 130, 'default'],
    ['SIGHUP', 129, 'results'],
  ] as const)('%s: exit %d, journal: %s', async (signal, code, kind) => {
    const w = await world(`${signal.toLowerCase()}-${kind}`);
    const s = await start(w, kind);
    const r = await stopWhen(s, (v) => v.outcomes >= 40, signal);
    expect(r.exitCode, r.stderr).toBe(code);
    noStack(r.stderr);
    const errors = errorLines(r.stderr);
    expect(errors).toHaveLength(1);
    const m = /^error: interrupted after (\d+) of 300 records; continue with: (.+)$/.exec(errors[0] ?? '');
    expect(m, r.stderr).not.toBeNull();
    const command = m?.[2] as string;
    expect(command).toBe(continueCommand(w, kind));

    // Requests in flight were given time to finish: nothing is left in flight, nothing unknown.
    const stopped = readJournalNow(s.journal);
    expect(linesWith(stopped, 'sending')).toEqual([]);
    expect(linesWith(stopped, 'unknown')).toEqual([]);
    expect(stopped.outcomes).toBe(Number(m?.[1]));
    expect(stopped.outcomes).toBeLessThan(N);
    expectServerMatchesJournal(w, stopped);

    const again = await sh(w, command);
    noStack(again.stderr);
    expect(again.exitCode, again.stderr).toBe(0);
    const created = linesWith(stopped, 'created').length;
    expect(again.stderr).toMatch(new RegExp(`^created ${N - created}, failed 0, unknown 0, skipped ${created}, invalid 0 in `, 'm'));
    if (kind === 'default') expect(resultLines(again.stdout)).toHaveLength(N);
    expectEachOnce(w);
  });

  it('SIGTERM while the rate limit makes the rest wait: exit 143 without waiting for the window, nothing in flight; the printed command sends the rest', async () => {
    // 100 requests a window: the first run sends 100 of 130 records, then waits for the window to end.
    const w = await world('term-ratelimit', { n: 130, perMinute: 100, windowMs: 1000 });
    const s = await start(w, 'results');
    const r = await stopWhen(s, (v) => v.outcomes >= 100, 'SIGTERM');
    expect(r.exitCode, r.stderr).toBe(143);
    noStack(r.stderr);
    const command = / continue with: (.+)$/m.exec(r.stderr)?.[1];
    expect(command).toBe(continueCommand(w, 'results'));
    const stopped = readJournalNow(s.journal);
    // Records waiting for the rate limit were never sent, so never journaled as in flight.
    expect(linesWith(stopped, 'sending')).toEqual([]);
    expect(stopped.outcomes).toBeLessThan(w.records.length);
    expectServerMatchesJournal(w, stopped);
    expect(w.sb.stats().count429).toBe(0);
    const again = await sh(w, command as string);
    expect(again.exitCode, again.stderr).toBe(0);
    expectEachOnce(w);
    expect(w.sb.stats().bansIssued).toBe(0);
  });

  it('SIGINT, then SIGINT again while a record is held: exit 130 at once; that record is in flight in the journal, the resume reports it unknown, --retry-unknown sends it', async () => {
    const { w, proxy, slow, s } = await startWithOneHeld('int-twice', 24, 40);
    // Ctrl-C, then Ctrl-C again until it ends (two signals sent back to back may reach it as one).
    let ended = false;
    void s.child.then(() => {
      ended = true;
    });
    s.child.kill('SIGINT');
    await until('the run to end', () => {
      if (!ended) s.child.kill('SIGINT');
      return ended;
    });
    const r = await s.child;
    expect(r.exitCode, String(r.stderr)).toBe(130);
    noStack(String(r.stderr));
    const killed = readJournalNow(s.journal);
    expect(killed.lastWord.get(slow.line)).toBe('sending');
    await proxy.release('drop');
    expectServerMatchesJournal(w, killed);
    const command = continueCommand(w, 'results');
    const unknown = await resumeAfterKill(w, 'results', command, w.results, killed);
    expect(unknown.map((u) => u.line)).toContain(slow.line);
    await settleUnknown(w, command, unknown);
  });

  it('SIGTERM while a slow record is held: the run waits for it (a rerun meanwhile is refused), records it, exits 143; the printed command sends the rest', async () => {
    const { w, proxy, slow, s } = await startWithOneHeld('term-held', 29, 40);
    s.child.kill('SIGTERM');
    // Once the others have wound down, only the held record is in flight; then the server answers it.
    await until('only the held record in flight', () => {
      const v = readJournalNow(s.journal);
      return proxy.forwarding() === 0 && linesWith(v, 'sending').join() === String(slow.line) && v;
    });
    // The same command again while this run still winds down (a CI job retried at once): refused, nothing sent.
    const since = Date.now();
    const early = await sh(w, continueCommand(w, 'results'));
    expect(early.exitCode, early.stderr).toBe(2);
    expect(errorLines(early.stderr)).toEqual([
      expect.stringContaining(
        `error: the journal ${w.results} is in use by another petstore (pid ${s.child.pid}): two runs on one journal would send records twice.`,
      ),
    ]);
    expect(w.sb.requests().filter((q) => q.time >= since)).toEqual([]);
    await proxy.release('forward');
    const r = await s.child;
    expect(r.exitCode, String(r.stderr)).toBe(143);
    const stopped = readJournalNow(s.journal);
    expect(stopped.lastWord.get(slow.line)).toBe('created');
    expect(linesWith(stopped, 'sending')).toEqual([]);
    expectServerMatchesJournal(w, stopped);
    const command = / continue with: (.+)$/m.exec(String(r.stderr))?.[1];
    expect(command).toBe(continueCommand(w, 'results'));
    const again = await sh(w, command as string);
    expect(again.exitCode, again.stderr).toBe(0);
    expectEachOnce(w);
  });
});

describe('a reader that leaves early (`| head -1`), then the printed command', () => {
  it('exit 141, one result line; the command in the message continues the default journal; every record once', async () => {
    // 8 ms a request: the run surely has records left when the reader's exit reaches it, however loaded the machine.
    const w = await world('head', { latencyMs: 8 });
    const r = await sh(w, `petstore pets add --file ${w.file} | head -1; exit "\${PIPESTATUS[0]}"`);
    noStack(r.stderr);
    expect(r.exitCode, r.stderr).toBe(141);
    expect(resultLines(r.stdout)).toEqual([expect.objectContaining({ status: 'created' })]);
    const errors = errorLines(r.stderr);
    expect(errors).toHaveLength(1);
    const m = /^error: stdout was closed \(its reader exited\): stopped after (\d+) of 300 records; the others were not sent; run: (.+)$/.exec(errors[0] ?? '');
    expect(m, r.stderr).not.toBeNull();
    const command = m?.[2] as string;
    expect(command).toBe(continueCommand(w, 'default'));
    const journal = /^journal: (.+)$/m.exec(r.stderr)?.[1] as string;
    const stopped = readJournalNow(journal);
    expect(linesWith(stopped, 'sending')).toEqual([]);
    expect(stopped.outcomes).toBeLessThan(N);
    expectServerMatchesJournal(w, stopped);

    const again = await sh(w, command);
    expect(again.exitCode, again.stderr).toBe(0);
    const created = linesWith(stopped, 'created').length;
    expect(again.stderr).toMatch(new RegExp(`^created ${N - created}, failed 0, unknown 0, skipped ${created}, invalid 0 in `, 'm'));
    expect(resultLines(again.stdout)).toHaveLength(N);
    expectEachOnce(w);
  });
});
