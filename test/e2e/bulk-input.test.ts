// `pets add --file --dry-run` on malformed inputs of 20 MB, as a user runs it (issue #14, item 6): one
// clear line-numbered error, the records around it checked, and SIGTERM honoured while checking.
// No timing assertions: the test's timeout is the guard (a quadratic reader takes tens of seconds).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../helpers/sandbox.js';
import type { SandboxHandle } from '../../src/sandbox/server.js';
import { runCli, spawnCli, tempDir } from '../helpers/cli.js';

const KEY = 'sk_bulk_input_test_0123456789';
const MB = 1024 * 1024;
// A run that hangs is killed after 15 s (timeoutMs below).
const TIMEOUT = 30_000;
const tmp = tempDir('petstore-bulk-input-');
let sb: SandboxHandle;
let n = 0;

beforeAll(async () => {
  sb = await startSandbox({ keys: [KEY] });
});
afterAll(async () => {
  await sb?.close();
  tmp.cleanup();
});

function file(name: string, ...parts: string[]): string {
  const path = join(tmp.dir, name);
  writeFileSync(path, parts.join(''));
  return path;
}

const options = () => ({
  configDir: join(tmp.dir, `cfg-${n++}`),
  env: { PETSTORE_BASE_URL: sb.baseUrl, PETSTORE_API_KEY: KEY, PETSTORE_ENV: 'staging' },
  timeoutMs: 15_000,
});
const dryRun = (path: string) => runCli(['pets', 'add', '--file', path, '--dry-run'], options());
const rows = (count: number, line: (i: number) => string) => Array.from({ length: count }, (_, i) => line(i)).join('');

describe('pets add --file --dry-run on malformed 20 MB inputs', () => {
  it(
    'NDJSON: a 20 MB line is "line 2: record longer than 1 MiB"; the 1,000 lines after it are checked',
    async () => {
      const path = file(
        'long.ndjson',
        '{"name":"a","categoryId":1}\n{"name":"',
        'x'.repeat(20 * MB),
        '","categoryId":2}\n',
        rows(1000, (i) => `{"name":"p${i}","categoryId":${i}}\n`),
      );
      const r = await dryRun(path);
      expect(r.stderr).toContain('line 2: record longer than 1 MiB\n');
      expect(r.stderr).toContain(`1 of 1002 records in ${path} are invalid`);
      expect(r.exitCode).toBe(2);
      expect(sb.requests()).toHaveLength(0);
    },
    TIMEOUT,
  );

  it(
    'CSV: a stray quote before 20 MB of rows is one "line 3: unterminated quoted field"',
    async () => {
      const path = file('stray.csv', 'name,categoryId\nRex,1\n"stray,2\n', 'Tom,3\n'.repeat((20 * MB) / 6));
      const r = await dryRun(path);
      expect(r.stderr).toContain('line 3: unterminated quoted field\n');
      expect(r.stderr).toContain(`1 of 2 records in ${path} are invalid`);
      expect(r.exitCode).toBe(2);
    },
    TIMEOUT,
  );

  it(
    'CSV: a 20 MB row is "line 3: record longer than 1 MiB"; the row after it is checked',
    async () => {
      const path = file('long.csv', 'name,categoryId\nRex,1\n', 'x'.repeat(20 * MB), ',2\nT\u00f6m,3\n');
      const r = await dryRun(path);
      expect(r.stderr).toContain('line 3: record longer than 1 MiB\n');
      expect(r.stderr).toContain(`1 of 3 records in ${path} are invalid`);
      expect(r.exitCode).toBe(2);
    },
    TIMEOUT,
  );

  it(
    'JSON: a 20 MB element is "line 3: record longer than 1 MiB"; the array is streamed on',
    async () => {
      const path = file('long.json', '[\n{"name":"a","categoryId":1},\n{"name":"', 'x'.repeat(20 * MB), '","categoryId":2},\n{"name":"c","categoryId":3}\n]\n');
      const r = await dryRun(path);
      expect(r.stderr).toContain('line 3: record longer than 1 MiB\n');
      expect(r.stderr).toContain(`1 of 3 records in ${path} are invalid`);
      expect(r.exitCode).toBe(2);
    },
    TIMEOUT,
  );

  it('invalid UTF-8 and a BOM: the bad line named, the BOM accepted', async () => {
    const path = join(tmp.dir, 'bad.ndjson');
    writeFileSync(path, Buffer.concat([Buffer.from('\uFEFF{"name":"a","categoryId":1}\n{"name":"b'), Buffer.from([0xff]), Buffer.from('","categoryId":2}\n')]));
    const r = await dryRun(path);
    expect(r.stderr).toContain('line 2: not valid UTF-8\n');
    expect(r.stderr).toContain(`1 of 2 records in ${path} are invalid`);
    expect(r.exitCode).toBe(2);
  });

  for (const format of ['ndjson', 'csv', 'json'] as const) {
    it(
      `SIGTERM while a 30 MB ${format} input is being checked stops the run (exit 143)`,
      async () => {
        // An invalid first record: its message on stderr says the checking has begun.
        const count = 500_000;
        const path =
          format === 'ndjson'
            ? file(
                'term.ndjson',
                '{"name":""}\n',
                rows(count, (i) => `{"name":"pet-${i}","categoryId":${i},"status":"sold"}\n`),
              )
            : format === 'csv'
              ? file(
                  'term.csv',
                  'name,categoryId,status\n,1,sold\n',
                  rows(count, (i) => `pet-${i},${i},sold\n`),
                )
              : file(
                  'term.json',
                  '[{"name":""}',
                  rows(count, (i) => `,\n{"name":"pet-${i}","categoryId":${i},"status":"sold"}`),
                  ']\n',
                );
        const child = spawnCli(['pets', 'add', '--file', path, '--dry-run'], options());
        await new Promise<void>((resolve) => {
          let seen = '';
          child.stderr?.on('data', (d: Buffer) => {
            seen += String(d);
            if (seen.includes('line ')) resolve();
          });
        });
        child.kill('SIGTERM');
        const done = await child;
        expect(String(done.stderr)).toMatch(/interrupted/);
        expect(done.exitCode).toBe(143);
      },
      TIMEOUT,
    );
  }
});
