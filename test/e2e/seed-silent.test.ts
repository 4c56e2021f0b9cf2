// A seeding run (`pets add --file`) against a server that stops answering (issue #35): real loopback
// servers that accept and never answer, that answer every other request and drop the rest, and that
// stop answering halfway (a proxy before the sandbox holding the second half). A silent server ends
// the run with exit 7 after a few unanswered requests, the records in flight `unknown` and the rest
// not sent; the printed command (plain --resume) then sends exactly those; an answering server,
// however many requests it drops, is never taken for a silent one. Nothing asserts on time.
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
import { json, startFaultServer } from '../helpers/fault-server.js';
import { startSandbox } from '../helpers/sandbox.js';
import {
  bash,
  linesWith,
  petstoreOnPath,
  readJournalNow,
  resultLines,
  seedRecords,
  startHoldingProxy,
  storedByName,
  storedNames,
  expectedNames,
  writeNdjson,
} from '../helpers/seeding.js';

const KEY = 'sk_seed_silent_key_5d2e8a1c';
const CONCURRENCY = 4;
/** Requests in a row without an answer that stop a run. */
const SILENT_AFTER = 3;

const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A temp folder with n records, and the environment of a run against baseUrl (staging: no confirmation). */
function world(prefix: string, n: number, baseUrl: string) {
  const tmp = tempDir(`petstore-silent-${prefix}-`);
  cleanups.push(tmp.cleanup);
  const records = seedRecords(prefix, n);
  const file = writeNdjson(join(tmp.dir, `${prefix}.ndjson`), records);
  const env = { PETSTORE_BASE_URL: baseUrl, PETSTORE_API_KEY: KEY, PETSTORE_ENV: 'staging' };
  const seed = (extra: string[] = []) =>
    runCli(['pets', 'add', '--file', file, '--timeout', '2', '--concurrency', String(CONCURRENCY), ...extra], { configDir: tmp.dir, env, timeoutMs: 80_000 });
  return { dir: tmp.dir, file, records, env, seed };
}

/** The one line a silent server ends the run with, and the command it names. */
function silentLine(stderr: string, host: string): { unanswered: number; command: string } {
  const m = new RegExp(
    `^error: no answer from ${host.replace(/\./g, '\\.')}: (\\d+) requests in a row timed out or closed before any response; the records in flight are unknown, the others were not sent; stopped after \\d+ of \\d+ records; run: (petstore pets add .*)$`,
    'm',
  ).exec(stderr);
  expect(m, stderr).not.toBeNull();
  return { unanswered: Number(m![1]), command: m![2]! };
}

const postedNames = (bodies: string[]) => bodies.map((b) => (JSON.parse(b) as { name: string }).name).sort();

describe('pets add --file: a server that stops answering', () => {
  it('accepts and never answers: 50 records with --timeout 2 end with exit 7, a few unknown, the rest not sent', { timeout: 90_000 }, async () => {
    const server = await startFaultServer([{ kind: 'stall' }]);
    cleanups.push(() => server.close());
    const w = world('never', 50, server.baseUrl);
    const r = await w.seed();
    expect(r.exitCode, r.stderr).toBe(7);
    const { unanswered, command } = silentLine(r.stderr, `127.0.0.1:${server.port}`);
    expect(unanswered).toBeGreaterThanOrEqual(SILENT_AFTER);
    expect(command).toBe(`petstore pets add --file ${w.file} --resume --concurrency ${CONCURRENCY}`);
    // Every request sent is a record in flight, now unknown: at most the concurrency plus the first probes.
    const results = resultLines(r.stdout);
    expect(results.every((l) => l.status === 'unknown')).toBe(true);
    // The server saw only those records, each once.
    const posted = postedNames(server.requests().map((q) => q.body));
    expect(new Set(posted).size).toBe(posted.length);
    expect(posted.every((name) => results.some((l) => l.record?.name === name))).toBe(true);
    expect(results.length).toBeLessThanOrEqual(CONCURRENCY + SILENT_AFTER);
    expect(r.stderr).toContain(`created 0, failed 0, unknown ${results.length},`);
    // The others are not in the journal: --resume sends them, --report shows only the unknown ones.
    const report = await runCli(['pets', 'add', '--file', w.file, '--report'], { configDir: w.dir, env: w.env });
    expect(report.exitCode, report.stderr).toBe(0);
    expect(resultLines(report.stdout).map((l) => l.status)).toEqual(results.map(() => 'unknown'));
  });

  for (const n of [50, 500]) {
    it(`answers every other request and drops the rest (${n} records, ${n >= 500 ? 'undici' : 'node:http'}): no stop, every record accounted for`, {
      timeout: 90_000,
    }, async () => {
      const quota = { 'x-ratelimit-limit': '100000', 'x-ratelimit-remaining': '99999', 'x-ratelimit-reset': '60' };
      const server = await startFaultServer((req) => {
        if (req.seq % 2 === 1) return { kind: 'drop', how: req.seq % 4 === 1 ? 'reset' : 'close' };
        const { name, categoryId } = JSON.parse(req.body) as { name: string; categoryId: number };
        return json(201, { id: req.seq, name, categoryId }, quota);
      });
      cleanups.push(() => server.close());
      const w = world(`half${n}`, n, server.baseUrl);
      const r = await w.seed();
      expect(r.exitCode, r.stderr).toBe(3);
      expect(r.stderr).not.toContain('no answer from');
      const results = resultLines(r.stdout);
      expect(results.map((l) => l.line).sort((a, b) => a! - b!)).toEqual(w.records.map((rec) => rec.line));
      const created = results.filter((l) => l.status === 'created').length;
      expect(created + results.filter((l) => l.status === 'unknown').length).toBe(n);
      // Each record sent once; every answer a created record.
      const names = postedNames(server.requests().map((q) => q.body));
      expect(new Set(names).size).toBe(names.length);
      expect(created).toBe(server.requests().filter((q) => q.seq % 2 === 0).length);
    });
  }

  it('stops answering halfway: exit 7; the printed --resume sends exactly the records not sent, --retry-unknown the rest', { timeout: 90_000 }, async () => {
    const sb = await startSandbox({ keys: [KEY], perMinute: 1_000_000, perDay: 100_000_000 });
    cleanups.push(() => sb.close());
    const proxy = await startHoldingProxy(sb.url);
    cleanups.push(() => proxy.close());
    const w = world('halfway', 50, proxy.baseUrl);
    // From record 26 on, the server never answers.
    for (const rec of w.records.slice(25)) proxy.holdName(rec.name);
    const r = await w.seed();
    expect(r.exitCode, r.stderr).toBe(7);
    const { command } = silentLine(r.stderr, new URL(proxy.baseUrl).host);
    const journal = /^journal: (.+)$/m.exec(r.stderr)![1]!;
    const view = readJournalNow(journal);
    const unknown = linesWith(view, 'unknown');
    expect(linesWith(view, 'created')).toEqual(w.records.slice(0, 25).map((rec) => rec.line));
    expect(unknown.length).toBeGreaterThanOrEqual(SILENT_AFTER);
    expect(unknown.every((line) => line > 25)).toBe(true);
    const notSent = w.records.filter((rec) => !view.lastWord.has(rec.line));
    expect(notSent.length).toBe(50 - 25 - unknown.length);
    // The held requests never reach the sandbox: those records are not there.
    await proxy.release('drop');
    expect(storedNames(sb, 'halfway')).toEqual(
      w.records
        .slice(0, 25)
        .map((rec) => rec.name)
        .sort(),
    );

    // The server is back: the printed command, as typed, sends the records not sent and nothing else.
    sb.clearRequests();
    const pathDir = petstoreOnPath(w.dir);
    const env = { ...w.env, HOME: w.dir, PETSTORE_CONFIG_DIR: join(w.dir, 'petstore'), PETSTORE_STATE_DIR: join(w.dir, 'state') };
    const resumed = await bash(command, { pathDir, env });
    expect(resumed.exitCode, resumed.stderr).toBe(3);
    const posted = sb.requests().filter((q) => q.method === 'POST');
    expect(postedNames(posted.map((q) => q.body))).toEqual(notSent.map((rec) => rec.name).sort());
    expect(linesWith(readJournalNow(journal), 'unknown')).toEqual(unknown);

    // The unknown ones, checked missing on the server, are sent with --retry-unknown: each record once.
    const retried = await bash(`${command} --retry-unknown`, { pathDir, env });
    expect(retried.exitCode, retried.stderr).toBe(0);
    expect(storedNames(sb, 'halfway')).toEqual(expectedNames('halfway', 50));
    expect([...storedByName(sb).values()].every((count) => count === 1)).toBe(true);
  });
});
