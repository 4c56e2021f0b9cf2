// `pets add --file` against a fault server: which answers to a POST are "failed" (the server
// rejected the record, so it surely was not created) and which are "unknown" (the answer does not
// prove it was not created), and that --resume resends unknown records only with --retry-unknown.
import { readFileSync, writeFileSync } from 'node:fs';
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
