// `pets add --file` against a fault server: which answers to a POST are "failed" (the server
// rejected the record, so it surely was not created) and which are "unknown" (the answer does not
// prove it was not created), and that --resume resends unknown records only with --retry-unknown.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseJson } from '../../src/json/int64.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { json, startFaultServer, type Fault } from '../helpers/fault-server.js';

const KEY = 'sk_seed_outcomes_key_7f3a9c';
const tmp = tempDir('petstore-seed-outcomes-');
afterAll(() => tmp.cleanup());

const error = (status: number, code: string) => json(status, { code, message: `said ${status}`, status });
const redirect = (status: number): Fault => ({ kind: 'respond', status, headers: { location: '/v1/pets/elsewhere' } });

/** The answer to each record, by the record's name; the expected status in its result line. */
const ANSWERS: [name: string, fault: Fault, expected: 'created' | 'failed' | 'unknown'][] = [
  ['created', json(201, { id: 1, name: 'created', categoryId: 1 }), 'created'],
  ['r301', redirect(301), 'unknown'],
  ['r302', redirect(302), 'unknown'],
  ['r303', redirect(303), 'unknown'],
  ['r307', redirect(307), 'unknown'],
  ['r308', redirect(308), 'unknown'],
  ['s500', error(500, 'internal'), 'unknown'],
  ['s503', error(503, 'unavailable'), 'unknown'],
  ['s408', error(408, 'timeout'), 'unknown'],
  ['s418', error(418, 'teapot'), 'unknown'],
  ['empty201', { kind: 'respond', status: 201 }, 'unknown'],
  ['notpet200', json(200, { hello: 'world' }), 'unknown'],
  ['reset', { kind: 'drop', how: 'reset' }, 'unknown'],
  ['huge201', { kind: 'big', status: 201, bytes: 17 * 1024 * 1024 }, 'unknown'],
  ['s400', error(400, 'invalid_field'), 'failed'],
  ['s404', error(404, 'unknown_path'), 'failed'],
  ['s409', error(409, 'conflict'), 'failed'],
  ['s413', error(413, 'payload_too_large'), 'failed'],
  ['s422', error(422, 'unprocessable'), 'failed'],
];

/** A journal's outcome lines, in input order. */
const lines = (text: string) =>
  text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => parseJson(l) as { line: number; status: string; reason?: string })
    .filter((l) => typeof l.line === 'number' && l.status !== 'sending')
    .sort((a, b) => a.line - b.line);

describe('pets add --file: what each answer to a POST means', () => {
  it('only a rejecting 4xx is "failed"; redirects, 5xx, 408/418, a 2xx that is no pet, a reset and an unreadable answer are "unknown", and --resume resends those only with --retry-unknown', async () => {
    const byName = new Map(ANSWERS.map(([name, fault]) => [name, fault]));
    const s = await startFaultServer((req) => byName.get((JSON.parse(req.body) as { name: string }).name) ?? error(500, 'unscripted'));
    try {
      const input = join(tmp.dir, 'pets.ndjson');
      writeFileSync(input, ANSWERS.map(([name]) => `{"name":"${name}","categoryId":1}\n`).join(''));
      const cli = (args: string[]) =>
        runCli(['pets', 'add', '--file', input, '--max-retries', '3', ...args], {
          configDir: join(tmp.dir, 'cfg'),
          env: { PETSTORE_BASE_URL: s.baseUrl, PETSTORE_API_KEY: KEY, PETSTORE_ENV: 'staging' },
          timeoutMs: 25_000,
        });
      const names = (from: number) =>
        s
          .requests()
          .slice(from)
          .map((r) => (JSON.parse(r.body) as { name: string }).name)
          .sort();

      const first = join(tmp.dir, 'first.ndjson');
      const r = await cli(['--results', first]);
      expect(r.stderr).not.toMatch(/\n\s+at |unexpected error/);
      expect(r.exitCode, r.stderr).toBe(3);
      const got = lines(readFileSync(first, 'utf8'));
      expect(got.map((l) => [ANSWERS[l.line - 1]![0], l.status])).toEqual(ANSWERS.map(([name, , expected]) => [name, expected]));
      expect(got.find((l) => l.line === 3)?.reason).toMatch(/^redirected \(HTTP 302 with an empty body, to \/v1\/pets\/elsewhere\); a POST is not followed/);
      // Every record was sent once: none of these answers is repeated, not even with retries allowed.
      expect(names(0)).toEqual(ANSWERS.map(([name]) => name).sort());

      const failed = ANSWERS.filter(([, , e]) => e === 'failed').map(([name]) => name);
      const unknown = ANSWERS.filter(([, , e]) => e === 'unknown').map(([name]) => name);
      const sent = s.requests().length;
      const again = await cli(['--resume', first, '--results', join(tmp.dir, 'second.ndjson')]);
      expect(again.exitCode, again.stderr).toBe(3);
      expect(names(sent)).toEqual(failed.sort());

      const before = s.requests().length;
      const retry = await cli(['--resume', first, '--retry-unknown', '--results', join(tmp.dir, 'third.ndjson')]);
      expect(retry.exitCode, retry.stderr).toBe(3);
      expect(names(before)).toEqual([...failed, ...unknown].sort());
    } finally {
      await s.close();
    }
  });
});

/** Each record's answers in turn, by name; the last one repeats. */
async function world(answers: Record<string, Fault[]>) {
  const count = new Map<string, number>();
  const s = await startFaultServer((req) => {
    const name = (JSON.parse(req.body) as { name: string }).name;
    const n = count.get(name) ?? 0;
    count.set(name, n + 1);
    const list = answers[name] ?? [error(500, 'unscripted')];
    return list[Math.min(n, list.length - 1)]!;
  });
  const dir = mkdtempSync(join(tmp.dir, 'resend-'));
  const input = join(dir, 'pets.ndjson');
  const journal = join(dir, 'journal.ndjson');
  writeFileSync(
    input,
    Object.keys(answers)
      .map((name) => `{"name":"${name}","categoryId":1}\n`)
      .join(''),
  );
  const cli = (args: string[]) =>
    runCli(['pets', 'add', '--file', input, '--results', journal, '--max-retries', '0', ...args], {
      configDir: join(dir, 'cfg'),
      env: { PETSTORE_BASE_URL: s.baseUrl, PETSTORE_API_KEY: KEY, PETSTORE_ENV: 'staging' },
      timeoutMs: 25_000,
    });
  const last = () => lines(readFileSync(journal, 'utf8')).at(-1)!;
  return { s, cli, last, input, journal, sent: (name: string) => count.get(name) ?? 0 };
}

/** Runs `body` against a world (above), whose server is closed however it ends. */
async function withWorld(answers: Record<string, Fault[]>, body: (w: Awaited<ReturnType<typeof world>>) => Promise<void>): Promise<void> {
  const w = await world(answers);
  try {
    await body(w);
  } finally {
    await w.s.close();
  }
}

describe('pets add --file --resume --retry-unknown: a resend that does not create the record', () => {
  it('rejected (409): still unknown, not failed, so a later --resume does not send it again unasked', async () => {
    await withWorld({ rex: [error(503, 'unavailable'), error(409, 'conflict'), json(201, { id: 7, name: 'rex', categoryId: 1 })] }, async (w) => {
      const first = await w.cli([]);
      expect(first.exitCode, first.stderr).toBe(3);
      expect(w.last().status).toBe('unknown');

      const retry = await w.cli(['--resume', '--retry-unknown']);
      expect(retry.exitCode, retry.stderr).toBe(3);
      expect(w.sent('rex')).toBe(2);
      const line = w.last();
      expect(line).toMatchObject({ line: 1, status: 'unknown' });
      expect(line.reason).toBe(
        'resent with --retry-unknown, and this attempt was rejected (HTTP 409 conflict: said 409); the earlier attempt may still have created it: check whether it exists',
      );
      expect(retry.stderr).toContain('unknown at line 1');

      // A plain --resume leaves it alone; only another --retry-unknown sends it.
      const again = await w.cli(['--resume']);
      expect(again.exitCode, again.stderr).toBe(3);
      expect(w.sent('rex')).toBe(2);
      const third = await w.cli(['--resume', '--retry-unknown']);
      expect(third.exitCode, third.stderr).toBe(0);
      expect(w.sent('rex')).toBe(3);
      expect(w.last()).toMatchObject({ line: 1, status: 'created' });
    });
  });

  it('stopped by a 401 after it was journaled as in flight: the journal keeps it unknown, not "not created"', async () => {
    await withWorld({ rex: [error(503, 'unavailable'), error(401, 'invalid_key')] }, async (w) => {
      expect((await w.cli([])).exitCode).toBe(3);
      const retry = await w.cli(['--resume', '--retry-unknown']);
      expect(retry.exitCode, retry.stderr).toBe(4);
      expect(w.sent('rex')).toBe(2);
      const last = w.last();
      expect(last).toMatchObject({ line: 1, status: 'unknown' });
      expect(last.reason).toMatch(
        /^resent with --retry-unknown, and this attempt was not processed \(.*401.*\); the earlier attempt may still have created it/,
      );
      const again = await w.cli(['--resume']);
      expect(w.sent('rex')).toBe(2);
      expect(again.exitCode, again.stderr).toBe(3);
    });
  });

  it('in flight when a run died, then resent and rejected: still unknown', async () => {
    await withWorld({ rex: [error(503, 'unavailable'), error(409, 'conflict')] }, async (w) => {
      expect((await w.cli([])).exitCode).toBe(3);
      // The journal as a run killed after the request left: its header and the in-flight line.
      const kept = readFileSync(w.journal, 'utf8')
        .split('\n')
        .filter((l) => l !== '' && !l.includes('"unknown"') && !l.includes('"finished"'));
      expect(kept.at(-1)).toBe('{"line":1,"status":"sending"}');
      writeFileSync(w.journal, `${kept.join('\n')}\n`);
      const retry = await w.cli(['--resume', '--retry-unknown']);
      expect(retry.exitCode, retry.stderr).toBe(3);
      expect(w.sent('rex')).toBe(2);
      expect(w.last()).toMatchObject({ line: 1, status: 'unknown' });
      expect(w.last().reason).toMatch(/^resent with --retry-unknown, and this attempt was rejected \(HTTP 409/);
    });
  });
});

describe('pets add --file --resume --skip-invalid: a record edited into an invalid one', () => {
  for (const [earlier, answers] of [
    ['unknown', [error(503, 'unavailable'), json(201, { id: 7, name: 'rex', categoryId: 1 })]],
    ['created', [json(201, { id: 7, name: 'rex', categoryId: 1 })]],
  ] as const) {
    it(`${earlier} before: the journal keeps that word, so the record is not sent again once it is fixed`, async () => {
      await withWorld({ rex: [...answers] }, async (w) => {
        await w.cli([]);
        expect(w.last().status).toBe(earlier);
        const good = readFileSync(w.input, 'utf8');
        writeFileSync(w.input, '{"name":"rex","categoryId":"one"}\n');
        const edited = await w.cli(['--resume', '--skip-invalid']);
        expect(edited.exitCode, edited.stderr).toBe(3);
        expect(edited.stderr).toContain('line 1: categoryId');
        expect(w.last().status).toBe(earlier);
        writeFileSync(w.input, good);
        const fixed = await w.cli(['--resume']);
        expect(w.sent('rex')).toBe(1);
        expect(fixed.exitCode, fixed.stderr).toBe(earlier === 'unknown' ? 3 : 0);
      });
    });
  }
});
