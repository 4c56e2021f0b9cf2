import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../../src/sandbox/server.js';
import { tempDir } from '../../helpers/cli.js';
import { runInProcess } from '../../helpers/inprocess.js';

const KEY = 'sk_progress_test_0123456789';
const tmp = tempDir('petstore-progress-');
let sb: SandboxHandle;
let file: string;

beforeAll(async () => {
  sb = await startSandbox({ keys: [KEY], perMinute: 100_000, perDay: 10_000_000 });
  file = join(tmp.dir, 'pets.ndjson');
  writeFileSync(file, Array.from({ length: 50 }, (_, i) => `{"name":"p${i}","categoryId":${i}}`).join('\n'));
});
afterAll(async () => {
  await sb.close();
  tmp.cleanup();
});

const env = () => ({ PETSTORE_BASE_URL: sb.baseUrl, PETSTORE_API_KEY: KEY, PETSTORE_ENV: 'staging', PETSTORE_CONFIG_DIR: join(tmp.dir, 'cfg') });

describe('pets add --file progress', () => {
  it('on a terminal: a self-rewriting line with done/total, rate, quota and ETA, cleared before the summary', async () => {
    const r = await runInProcess(['pets', 'add', '--file', file, '--results', join(tmp.dir, 'r1.ndjson')], { env: env(), stderrTTY: true });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/\r\x1b\[Kseeding \d+\/50 \(\d+%\) · [\d.]+\/s · quota \d+\/100000 · ETA \S+/);
    expect(r.stderr).toMatch(/\r\x1b\[Kcreated 50, failed 0, unknown 0, skipped 0, invalid 0 in [\d.]+s, [\d.]+ requests\/s\n/);
    // No quota line after it: plenty is left (it follows a command only under 20% or with --verbose).
    expect(r.stderr).not.toMatch(/quota: \d+\/100000 left/);
  });

  it('not on a terminal: nothing on stderr but the summary', async () => {
    const r = await runInProcess(['pets', 'add', '--file', file, '--results', join(tmp.dir, 'r2.ndjson')], { env: env() });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^created 50, failed 0, unknown 0, skipped 0, invalid 0 in [\d.]+s, [\d.]+ requests\/s\n$/);
  });
});
