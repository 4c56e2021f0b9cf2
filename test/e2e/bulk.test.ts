import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseJson } from '../../src/json/int64.js';
import { startSandbox } from '../helpers/sandbox.js';
import type { SandboxHandle } from '../../src/sandbox/server.js';
import { runCli, spawnCli, tempDir } from '../helpers/cli.js';

const KEY = 'sk_bulk_test_key_0123456789';
const tmp = tempDir('petstore-bulk-');
afterAll(() => tmp.cleanup());

interface Rec {
  name: string;
  categoryId: bigint;
  status?: string;
}

const STATUSES = ['available', 'pending', 'sold'];
function records(n: number, prefix = 'pet'): Rec[] {
  return Array.from({ length: n }, (_, i) => ({
    name: `${prefix}-${i + 1}${i % 7 === 0 ? ', "quoted"' : ''}`,
    // Some categoryIds above 2^53 must survive exactly.
    categoryId: i % 5 === 0 ? 9007199254740993n + BigInt(i) : BigInt(i),
    ...(i % 4 === 0 ? {} : { status: STATUSES[i % 3] as string }),
  }));
}

const json = (r: Rec) => `{"name":${JSON.stringify(r.name)},"categoryId":${r.categoryId}${r.status ? `,"status":"${r.status}"` : ''}}`;
const csvField = (s: string) => (/[",\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s);
const writers = {
  ndjson: (rs: Rec[]) => `${rs.map(json).join('\n')}\n`,
  json: (rs: Rec[]) => `[\n${rs.map((r) => `  ${json(r)}`).join(',\n')}\n]\n`,
  csv: (rs: Rec[]) => `name,categoryId,status\n${rs.map((r) => `${csvField(r.name)},${r.categoryId},${r.status ?? ''}`).join('\n')}\n`,
};

function file(name: string, text: string): string {
  const path = join(tmp.dir, name);
  writeFileSync(path, text);
  return path;
}

/** The sandbox's store as comparable strings, sorted. */
function stored(sb: SandboxHandle): string[] {
  return sb
    .pets()
    .map((p) => `${p.name}|${p.categoryId}|${p.status ?? ''}`)
    .sort();
}
const expected = (rs: Rec[]) => rs.map((r) => `${r.name}|${r.categoryId}|${r.status ?? ''}`).sort();

/** Result lines (stdout, or a journal's outcome lines), in input order. */
function resultLines(text: string): Record<string, unknown>[] {
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => parseJson(l) as Record<string, unknown>)
    .filter((l) => typeof l.line === 'number' && l.status !== 'sending')
    .sort((a, b) => (a.line as number) - (b.line as number));
}

let sb: SandboxHandle;
let n = 0;
function env(extra: Record<string, string> = {}) {
  return { PETSTORE_BASE_URL: sb.baseUrl, PETSTORE_API_KEY: KEY, PETSTORE_ENV: 'staging', ...extra };
}
const cli = (args: string[], opts: { input?: string; env?: Record<string, string> } = {}) =>
  runCli(args, { configDir: join(tmp.dir, `cfg-${n}`), env: env(opts.env), ...(opts.input !== undefined ? { input: opts.input } : {}) });

describe('pets add --file against the sandbox', () => {
  beforeAll(() => {});
  afterEach(async () => {
    await sb?.close();
    n++;
  });

  for (const format of ['ndjson', 'json', 'csv'] as const) {
    it(`creates 500 ${format} records exactly once, one result line each with its line number and exact id, all in the journal`, async () => {
      sb = await startSandbox({ keys: [KEY], perMinute: 100_000, perDay: 10_000_000, firstId: 9007199254740993n });
      const rs = records(500, format);
      const path = file(`pets.${format}`, writers[format](rs));
      const r = await cli(['pets', 'add', '--file', path, '--concurrency', '8']);
      expect(r.stderr).toMatch(/created 500, failed 0, unknown 0, skipped 0, invalid 0 in [\d.]+s/);
      expect(r.exitCode).toBe(0);
      expect(stored(sb)).toEqual(expected(rs));
      const lines = resultLines(r.stdout);
      expect(lines.map((l) => l.line)).toEqual(rs.map((_, i) => (format === 'json' ? i + 2 : format === 'csv' ? i + 2 : i + 1)));
      expect(lines.every((l) => l.status === 'created')).toBe(true);
      // The first id handed out is 2^53 + 1: it must come back exactly.
      const ids = lines.map((l) => (l.pet as { id: bigint }).id).sort((a, b) => (a < b ? -1 : 1));
      expect(ids[0]).toBe(9007199254740993n);
      expect(r.stdout).toContain('"id":9007199254740993,');
      // The journal, named on stderr, holds the same outcomes, each record journaled as sending first.
      const journal = /^journal: (.+)$/m.exec(r.stderr)?.[1] as string;
      const entries = readFileSync(journal, 'utf8').trimEnd().split('\n');
      expect(entries[0]).toContain('"journal":"petstore pets add"');
      expect(entries.at(-1)).toMatch(/^\{"finished":/);
      expect(entries.filter((e) => e.includes('"status":"sending"'))).toHaveLength(500);
      expect(resultLines(entries.join('\n'))).toEqual(lines);
    });
  }

  it('an input over 1 MiB, whose records pass 1 does not keep, is read again to send: every record created once, its result at its line', async () => {
    sb = await startSandbox({ keys: [KEY], perMinute: 100_000, perDay: 10_000_000 });
    const rs = records(6, 'padded');
    // Each line padded with JSON whitespace to ~800 KB: under the 1 MiB a record may take, 4.8 MB in all.
    const path = file('padded.ndjson', rs.map((r) => `${json(r)}${' '.repeat(800_000)}\n`).join(''));
    const r = await cli(['pets', 'add', '--file', path]);
    expect(r.exitCode).toBe(0);
    expect(stored(sb)).toEqual(expected(rs));
    const lines = resultLines(r.stdout);
    expect(lines.map((l) => [l.line, l.status, (l.pet as { name: string }).name])).toEqual(rs.map((rec, i) => [i + 1, 'created', rec.name]));
  });

  it('499 records go through node:http, 500 or more through undici; each engine creates every record once', async () => {
    for (const [count, engine] of [
      [499, 'node:http (keep-alive)'],
      [500, 'undici (bulk, at most 8 connections)'],
    ] as const) {
      sb = await startSandbox({ keys: [KEY], perMinute: 100_000, perDay: 10_000_000 });
      const rs = records(count, `engine-${count}`);
      const r = await cli(['pets', 'add', '--file', file(`engine-${count}.ndjson`, writers.ndjson(rs)), '--concurrency', '8', '--debug']);
      expect(r.exitCode).toBe(0);
      expect(r.stderr.split('\n').filter((l) => l.includes('* HTTP client:'))).toEqual([`debug: * HTTP client: ${engine}`]);
      expect(stored(sb)).toEqual(expected(rs));
      expect(resultLines(r.stdout).filter((l) => l.status === 'created')).toHaveLength(count);
      await sb.close();
    }
  });

  it('an invalid record at line 400: nothing sent, exit 2, the line named', async () => {
    sb = await startSandbox({ keys: [KEY], perMinute: 100_000, perDay: 10_000_000 });
    const rs = records(500);
    const lines = writers.ndjson(rs).split('\n');
    lines[399] = '{"name":"Bad","categoryId":"12x","status":"lost"}';
    const path = file('bad.ndjson', lines.join('\n'));
    const r = await cli(['pets', 'add', '--file', path]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('line 400: categoryId must be a whole number');
    expect(r.stderr).toContain('line 400: status must be one of available, pending, sold');
    expect(r.stderr).toMatch(/1 of 500 records .* are invalid .*nothing was sent.*--skip-invalid/);
    expect(r.stdout).toBe('');
    expect(sb.requests()).toHaveLength(0);
  });

  it('--skip-invalid sends the valid records, reports the rest, exits 3', async () => {
    sb = await startSandbox({ keys: [KEY], perMinute: 100_000, perDay: 10_000_000 });
    const text = '{"name":"a","categoryId":1}\n{"name":"","categoryId":2}\nnot json\n{"name":"d","categoryId":4}\n';
    const r = await cli(['pets', 'add', '--file', '-', '--format', 'ndjson', '--skip-invalid'], { input: text });
    expect(r.exitCode).toBe(3);
    expect(stored(sb)).toEqual(['a|1|', 'd|4|']);
    const lines = resultLines(r.stdout);
    expect(lines.map((l) => [l.line, l.status])).toEqual([
      [1, 'created'],
      [2, 'invalid'],
      [3, 'invalid'],
      [4, 'created'],
    ]);
    expect(r.stderr).toContain('skipping line 2: name must be a non-empty string');
    expect(r.stderr).toMatch(/created 2, failed 0, unknown 0, skipped 0, invalid 2/);
  });

  it('--dry-run validates and lists what would be sent, sending nothing', async () => {
    sb = await startSandbox({ keys: [KEY] });
    const path = file('dry.csv', writers.csv(records(3)));
    const r = await cli(['pets', 'add', '--file', path, '--dry-run']);
    expect(r.exitCode).toBe(0);
    expect(resultLines(r.stdout).map((l) => l.status)).toEqual(['would_create', 'would_create', 'would_create']);
    expect(r.stdout).toContain('"categoryId":9007199254740993');
    expect(sb.requests()).toHaveLength(0);
  });

  it('--dry-run --skip-invalid: exit 3, saying which records would not be created, sending nothing', async () => {
    sb = await startSandbox({ keys: [KEY] });
    const text = '{"name":"a","categoryId":1}\n{"name":"","categoryId":2}\nnot json\n';
    const r = await cli(['pets', 'add', '--file', '-', '--format', 'ndjson', '--dry-run', '--skip-invalid'], { input: text });
    expect(r.exitCode).toBe(3);
    expect(resultLines(r.stdout).map((l) => l.status)).toEqual(['would_create', 'invalid', 'invalid']);
    expect(r.stderr).toContain('error: 2 of 3 records would not be created (unknown 0, invalid 2); see the results\n');
    expect(r.stderr).not.toMatch(/were not created|failed 0/);
    expect(sb.requests()).toHaveLength(0);
  });

  it('server-side rejections are "failed", 5xx "unknown": exit 3, and the results say which', async () => {
    sb = await startSandbox({ keys: [KEY], perMinute: 100_000, perDay: 10_000_000 });
    sb.failNext({ count: 1, status: 400, code: 'invalid_field' });
    const path = file('three.ndjson', writers.ndjson(records(3)));
    const results = join(tmp.dir, 'failed-results.ndjson');
    const r = await cli(['pets', 'add', '--file', path, '--concurrency', '1', '--results', results]);
    expect(r.exitCode).toBe(3);
    expect(r.stdout).toBe('');
    const lines = resultLines(readFileSync(results, 'utf8'));
    expect(lines[0]).toMatchObject({ line: 1, status: 'failed', error: { code: 'invalid_field', status: 400 } });
    expect(lines.slice(1).map((l) => l.status)).toEqual(['created', 'created']);
    expect(r.stderr).toMatch(/1 of 3 records were not created/);
  });

  it('a run interrupted with SIGINT halfway, then --resume: exactly the input set, no duplicates', async () => {
    sb = await startSandbox({ keys: [KEY], perMinute: 100_000, perDay: 10_000_000, latencyMs: 10 });
    const rs = records(500, 'resume');
    const path = file('resume.ndjson', writers.ndjson(rs));
    const first = join(tmp.dir, 'first.ndjson');
    const cfg = join(tmp.dir, 'cfg-resume');
    const child = spawnCli(['pets', 'add', '--file', path, '--concurrency', '4', '--results', first], { configDir: cfg, env: env() });
    while (sb.pets().length < 100) await new Promise((r) => setTimeout(r, 20));
    child.kill('SIGINT');
    const done = await child;
    expect(done.exitCode).toBe(130);
    expect(String(done.stderr)).toContain(`interrupted after `);
    expect(String(done.stderr)).toContain(`of 500 records; continue with: petstore pets add --file ${path} --results ${first} --resume --concurrency 4`);
    const partial = resultLines(readFileSync(first, 'utf8'));
    expect(partial.length).toBeGreaterThan(0);
    expect(partial.length).toBeLessThan(500);
    // Every pet the server stored is recorded as created: nothing was lost.
    expect(partial.filter((l) => l.status === 'created')).toHaveLength(sb.pets().length);

    const second = join(tmp.dir, 'second.ndjson');
    const r = await runCli(['pets', 'add', '--file', path, '--resume', first, '--results', second], { configDir: cfg, env: env() });
    expect(r.exitCode).toBe(0);
    expect(stored(sb)).toEqual(expected(rs));
    const all = resultLines(readFileSync(second, 'utf8'));
    expect(all).toHaveLength(500);
    // The new journal starts as a copy of the first, then the rest: every record created, once.
    expect(all.filter((l) => l.status === 'created')).toHaveLength(500);
    expect(r.stderr).toContain(`started from a copy of ${first} (created ${partial.length})`);
  });

  it('SIGINT while requests to a server that refuses connections wait for their retries: the interruption is what it says, with how to go on', async () => {
    // A port nothing listens on.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const path = file('refused.ndjson', writers.ndjson(records(50, 'refused')));
    const child = spawnCli(['pets', 'add', '--file', path, '--yes'], {
      configDir: join(tmp.dir, 'cfg-refused'),
      env: { PETSTORE_BASE_URL: `http://127.0.0.1:${port}/v1`, PETSTORE_API_KEY: KEY, PETSTORE_ENV: 'staging' },
    });
    // Into the retries' waits, once the first is announced: the waits are drawn at random (up to 1 s,
    // 2 s, 4 s), so a fixed delay could outlast every retry of some record, and the run end before it.
    await new Promise<void>((resolve) => {
      let text = '';
      child.stderr?.on('data', (chunk: Buffer) => {
        text += chunk.toString();
        if (text.includes('retrying in')) resolve();
      });
    });
    child.kill('SIGINT');
    const done = await child;
    expect(done.exitCode, String(done.stderr)).toBe(130);
    expect(String(done.stderr)).toMatch(/error: interrupted after 0 of 50 records; continue with: petstore pets add --file \S+ --resume/);
  }, 20_000);

  it('a dry run interrupted with SIGINT: exit 130, how far it listed, and no command to continue (a --resume would send)', async () => {
    const path = file('dry-interrupt.ndjson', writers.ndjson(records(300_000, 'dry')));
    const child = spawnCli(['pets', 'add', '--file', path, '--dry-run'], { env: {} });
    let listed = 0;
    child.stdout?.on('data', (chunk: Buffer) => {
      const before = listed;
      listed += chunk.toString().split('\n').length - 1;
      // Once: a second signal during the wind-down ends the run at once, without its last line.
      if (before <= 1000 && listed > 1000) child.kill('SIGINT');
    });
    const done = await child;
    expect(done.exitCode, String(done.stderr)).toBe(130);
    expect(String(done.stderr)).toMatch(/interrupted after \d+ of 300000 records\n/);
    expect(String(done.stderr)).not.toContain('continue with');
    expect(String(done.stderr)).not.toContain('--resume');
  });

  it('--resume refuses a results file that does not match the input', async () => {
    sb = await startSandbox({ keys: [KEY] });
    const path = file('a.ndjson', writers.ndjson(records(2, 'a')));
    const other = file('b-results.ndjson', '{"line":1,"status":"created","pet":{"id":1,"name":"zzz","categoryId":1}}\n');
    const r = await cli(['pets', 'add', '--file', path, '--resume', other]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('line 1: differs from the pet the journal records as created');
    expect(sb.requests()).toHaveLength(0);
  });

  it('under a low limit with a short window: all created, zero 429 bans', async () => {
    // 500 ms: a window that opens just after a reset lasts to the next whole second (~1 s); 30 records need 3.
    sb = await startSandbox({ keys: [KEY], perMinute: 10, windowMs: 500 });
    const rs = records(30, 'limited');
    const path = file('limited.ndjson', writers.ndjson(rs));
    const r = await cli(['pets', 'add', '--file', path, '--concurrency', '8']);
    expect(r.exitCode).toBe(0);
    expect(stored(sb)).toEqual(expected(rs));
    expect(sb.stats().count403bans).toBe(0);
    expect(sb.stats().bansIssued).toBe(0);
  });

  it('500 records (the undici engine) under a binding limit: all created once, no 429, no ban', async () => {
    sb = await startSandbox({ keys: [KEY], perMinute: 250, windowMs: 1000, perDay: 10_000_000 });
    const rs = records(500, 'limited-bulk');
    const r = await cli(['pets', 'add', '--file', file('limited-bulk.ndjson', writers.ndjson(rs)), '--concurrency', '8', '--debug']);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain('debug: * HTTP client: undici (bulk, at most 8 connections)');
    expect(stored(sb)).toEqual(expected(rs));
    expect(sb.stats().count429).toBe(0);
    expect(sb.stats().count403bans).toBe(0);
    expect(sb.stats().bansIssued).toBe(0);
  });

  it('production without --yes when not interactive: exit 2, nothing sent', async () => {
    sb = await startSandbox({ keys: [KEY] });
    const path = file('prod.ndjson', writers.ndjson(records(2)));
    const r = await cli(['pets', 'add', '--file', path], { env: { PETSTORE_ENV: 'production' } });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/refusing to create 2 pets in the production environment .* pass --yes/);
    expect(sb.requests()).toHaveLength(0);
    const yes = await cli(['pets', 'add', '--file', path, '--yes'], { env: { PETSTORE_ENV: 'production' } });
    expect(yes.exitCode).toBe(0);
    expect(sb.pets()).toHaveLength(2);
  });

  it('flag mistakes are usage errors before anything is read or sent', async () => {
    sb = await startSandbox({ keys: [KEY] });
    const path = file('one.ndjson', writers.ndjson(records(1)));
    const cases: [string[], RegExp][] = [
      [['--concurrency', '0'], /invalid --concurrency "0": must be a whole number from 1 to 64/],
      [['--name', 'x'], /--name cannot be combined with --file/],
      [['--retry-unknown'], /--retry-unknown needs --resume/],
      [['--format', 'xml'], /invalid --format "xml"/],
      [['-o', 'csv'], /invalid --output "csv": must be one of ndjson, table/],
    ];
    for (const [extra, message] of cases) {
      const r = await cli(['pets', 'add', '--file', path, ...extra]);
      expect(r.exitCode, extra.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
    }
    const missing = await cli(['pets', 'add', '--file', join(tmp.dir, 'nope.csv')]);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain('no such file');
    expect(sb.requests()).toHaveLength(0);
  });
});
