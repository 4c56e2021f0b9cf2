// Folders that exist and take no new folder (ENOENT: /proc/self on Linux; some network and FUSE file
// systems): Node's recursive mkdir never returns there, at full CPU and deaf to SIGTERM. petstore makes
// its folders one level at a time (src/fs/make-dir.ts) and Node's compile-cache folder before Node does
// (bin/petstore): one clear line and exit 2, or the command simply works. Each run has a deadline
// (SIGKILL after it), so a regression fails instead of hanging.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2e, type E2E } from '../helpers/e2e.js';

const NOWHERE = '/proc/self/petstore';
let t: E2E;
beforeAll(async () => {
  t = await e2e();
});
afterAll(() => t.close());

describe.runIf(process.platform === 'linux')('a folder where no folder can be made', () => {
  it('PETSTORE_CONFIG_DIR there: exit 2 naming the folder, the problem and the fix; nothing sent', async () => {
    t.sb.clearRequests();
    for (const args of [
      ['env', 'list'],
      ['pets', 'list'],
    ]) {
      const r = await t.cli(args, { env: { PETSTORE_CONFIG_DIR: NOWHERE }, timeoutMs: 15_000 });
      expect(r.exitCode, args.join(' ')).toBe(2);
      expect(r.stderr).toBe(
        `error: cannot use the config folder ${NOWHERE}: no such file or folder (ENOENT); set PETSTORE_CONFIG_DIR to a folder you can write\n`,
      );
    }
    expect(t.sb.requests()).toHaveLength(0);
  });

  it('PETSTORE_STATE_DIR there: a seeding run stops before sending, naming the journal folder and the fixes', async () => {
    const file = join(t.dir, 'one.ndjson');
    writeFileSync(file, '{"name":"nowhere","categoryId":1}\n');
    t.sb.clearRequests();
    const r = await t.cli(['pets', 'add', '--file', file, '--yes'], { env: { PETSTORE_STATE_DIR: NOWHERE }, timeoutMs: 15_000 });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toBe(
      `error: cannot make the journal folder ${NOWHERE}/journals: no such file or folder (ENOENT); set PETSTORE_STATE_DIR, or pass --results <file>\n`,
    );
    expect(t.sb.requests()).toHaveLength(0);
  });

  it('PETSTORE_STATE_DIR there: a command that keeps no journal works', async () => {
    const r = await t.cli(['pets', 'list', '-o', 'json'], { env: { PETSTORE_STATE_DIR: NOWHERE }, timeoutMs: 15_000 });
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
  });

  it('TMPDIR there (Node’s compile cache): the command works, without the cache', async () => {
    const r = await t.cli(['pets', 'list', '-o', 'json'], { env: { TMPDIR: NOWHERE }, timeoutMs: 15_000 });
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(Array.isArray(JSON.parse(r.stdout))).toBe(true);
  });
});
