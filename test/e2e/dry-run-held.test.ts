// A dry run reads its input once: its lines are held (src/bulk/held-lines.ts) until every record has
// passed, in a temporary file past 64 KB. Whatever the temporary folder (its own, one that does not
// exist, a 16 KiB tmpfs that fills up) it lists the same lines and sends nothing; an invalid record
// anywhere still means nothing listed; a kill -9 leaves nothing in the temporary folder.
import { existsSync, mkdirSync, readdirSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnCli } from '../helpers/cli.js';
import { e2e, type E2E } from '../helpers/e2e.js';
import { useTinyTmpfs } from '../helpers/tiny-fs.js';
import { missingTool } from '../helpers/tools.js';

let t: E2E;
beforeAll(async () => {
  t = await e2e();
});
afterAll(() => t.close());

function input(name: string, n: number, edit?: (lines: string[]) => void): string {
  const lines = Array.from({ length: n }, (_, i) => `{"name":"held-${i + 1} é","categoryId":${i + 1}${i % 3 === 0 ? ',"status":"sold"' : ''}}`);
  edit?.(lines);
  const path = join(t.dir, name);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

const dryRun = (file: string, tmp: string) => t.cli(['pets', 'add', '--file', file, '--dry-run'], { env: { TMPDIR: tmp } });

/** What petstore left in a temporary folder (Node's own compile cache aside). */
const leftIn = (dir: string) => readdirSync(dir).filter((name) => name !== 'node-compile-cache');

function folder(name: string): string {
  const dir = join(t.dir, name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

describe('a dry run whose lines pass 64 KB', () => {
  const N = 3000;
  let file = '';
  let expected = '';
  beforeAll(() => {
    file = input('held.ndjson', N);
    // The lines a dry run lists: each record as it was written, at its line.
    expected = Array.from({ length: N }, (_, i) => {
      const record = `{"name":"held-${i + 1} é","categoryId":${i + 1}${i % 3 === 0 ? ',"status":"sold"' : ''}}`;
      return `{"line":${i + 1},"status":"would_create","record":${record}}\n`;
    }).join('');
  });

  it('lists every record once, in order, exit 0, nothing sent, and nothing left in its temporary folder', async () => {
    const tmp = folder('tmp-own');
    const before = t.sb.requests().length;
    const r = await dryRun(file, tmp);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe(expected);
    expect(r.stderr).toMatch(/^dry run: would create 3000, skipped 0, invalid 0, unknown 0 in/m);
    expect(t.sb.requests().length).toBe(before);
    expect(leftIn(tmp)).toEqual([]);
  });

  it('with a temporary folder that does not exist: the same lines (read a second time instead), exit 0', async () => {
    const r = await dryRun(file, join(t.dir, 'no-such-folder'));
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe(expected);
  });

  it('an invalid record near the end: exit 2, the problem on stderr, nothing listed', async () => {
    const bad = input('held-bad.ndjson', N, (lines) => {
      lines[N - 10] = '{"name":"","categoryId":1}';
    });
    const r = await dryRun(bad, folder('tmp-bad'));
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`line ${N - 9}: name must be a non-empty string`);
  });
});

describe('a dry run whose temporary folder fills up: a 16 KiB tmpfs', () => {
  const tiny = useTinyTmpfs(() => join(t.dir, 'tiny-tmp'));

  it('lists the same lines as with room to spare, exit 0, and leaves the tmpfs empty', async (ctx) => {
    if (tiny.skipped(ctx)) return;
    const mnt = tiny.dir;
    const file = input('held-tiny.ndjson', 3000);
    const roomy = await dryRun(file, folder('tmp-roomy'));
    const r = await dryRun(file, mnt);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe(roomy.stdout);
    expect(r.stdout.split('\n')).toHaveLength(3001);
    expect(leftIn(mnt)).toEqual([]);
  });
});

/** The deleted file a process holds open under `dir`, if any (Linux: /proc/<pid>/fd). */
function heldOpenUnder(pid: number, dir: string): string | undefined {
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      let target = '';
      try {
        target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        continue;
      }
      if (target.startsWith(dir) && target.endsWith('(deleted)')) return target;
    }
  } catch {
    // The process has exited.
  }
  return undefined;
}

describe.skipIf(missingTool('/proc (Linux)', existsSync('/proc/self/fd')))('a dry run stopped while it checks the records', () => {
  /** Starts a dry run of 300,000 records; resolves once its lines are going to the temporary file (pass 1 under way). */
  async function started(name: string) {
    const tmp = folder(`tmp-${name}`);
    const file = input(`held-${name}.ndjson`, 300_000);
    const child = spawnCli(['pets', 'add', '--file', file, '--dry-run'], { env: { TMPDIR: tmp, PETSTORE_BASE_URL: 'http://127.0.0.1:9/v1' } });
    let seen: string | undefined;
    for (let i = 0; i < 2000 && seen === undefined; i++) {
      seen = heldOpenUnder(child.pid as number, tmp);
      if (seen === undefined) await new Promise((resolve) => setTimeout(resolve, 2));
    }
    return { child, tmp, seen };
  }

  it('SIGINT: exit 130, how far the check came, nothing listed', async () => {
    const { child, seen } = await started('sigint');
    child.kill('SIGINT');
    const done = await child;
    expect(seen).toBeDefined();
    expect(done.exitCode, String(done.stderr)).toBe(130);
    expect(String(done.stdout)).toBe('');
    expect(String(done.stderr)).toMatch(/^error: interrupted while checking the records \(\d+ read\); nothing was listed\n$/m);
  });

  it('SIGKILL while its lines are in the temporary file: that file was never in the folder to be left behind', async () => {
    const { child, tmp, seen } = await started('sigkill');
    child.kill('SIGKILL');
    const done = await child;
    expect(seen, 'the run never held a file open under its TMPDIR').toMatch(/\/petstore-dry-run-[0-9a-f-]+ \(deleted\)$/);
    expect(done.signal).toBe('SIGKILL');
    expect(String(done.stdout)).toBe('');
    expect(leftIn(tmp)).toEqual([]);
  });
});
