// `pets add --file` and the disk: a journal (--results) path that cannot be written or that is the
// input is refused before anything is read or sent; one that already holds records is continued only
// with --resume; a journal that fills up (/dev/full, a 16 KiB tmpfs) stops the run at once with one
// line, leaves no torn line, loses no outcome line, and a --resume afterwards creates nothing twice.
import { spawnSync } from 'node:child_process';
import { existsSync, linkSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJson } from '../../src/json/int64.js';
import type { CliResult } from '../helpers/cli.js';
import { e2e, type E2E } from '../helpers/e2e.js';
import { expectedNames, storedNames } from '../helpers/seeding.js';
import { useTinyTmpfs } from '../helpers/tiny-fs.js';
import { missingTool } from '../helpers/tools.js';

let t: E2E;
beforeAll(async () => {
  t = await e2e();
});
afterAll(() => t.close());

const seed = (args: string[]) => t.cli(['pets', 'add', ...args], { env: { PETSTORE_ENV: 'staging' } });

function input(name: string, n: number, prefix = 'pet'): string {
  const path = join(t.dir, name);
  writeFileSync(path, Array.from({ length: n }, (_, i) => `{"name":"${prefix}-${i + 1}","categoryId":${i + 1}}\n`).join(''));
  return path;
}

/** A journal's (or stdout's) outcome lines. */
const results = (text: string) =>
  text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => parseJson(l) as { line: number; status: string; pet?: { name: string } })
    .filter((l) => typeof l.line === 'number' && l.status !== 'sending');

/** One `error:` line, the last one on stderr, no stack trace and no "unexpected error". */
function oneError(r: CliResult, pattern: RegExp): void {
  expect(r.stderr).not.toMatch(/\n\s+at |^\s+at |unexpected error/m);
  const errors = r.stderr.split('\n').filter((l) => l.startsWith('error:'));
  expect(errors, r.stderr).toHaveLength(1);
  expect(errors[0]).toMatch(pattern);
}

const stored = (prefix: string) => storedNames(t.sb, prefix);
const names = expectedNames;

describe('a --results file that cannot be used is refused before anything is read or sent', () => {
  it('the input file under another name (/./, /sub/../, a symbolic link, a hard link): exit 2, both named, the input untouched', async () => {
    const file = input('same.ndjson', 3);
    const before = readFileSync(file, 'utf8');
    mkdirSync(join(t.dir, 'sub'), { recursive: true });
    symlinkSync(file, join(t.dir, 'same-symlink.ndjson'));
    linkSync(file, join(t.dir, 'same-hardlink.ndjson'));
    const sent = t.sb.requests().length;
    for (const other of [`${t.dir}/./same.ndjson`, `${t.dir}/sub/../same.ndjson`, join(t.dir, 'same-symlink.ndjson'), join(t.dir, 'same-hardlink.ndjson')]) {
      const r = await seed(['--file', file, '--results', other]);
      expect(r.exitCode, other).toBe(2);
      oneError(r, new RegExp(`^error: --results ${other.replaceAll('.', '\\.')} is the input file \\(--file ${file.replaceAll('.', '\\.')}\\)`));
      expect(readFileSync(file, 'utf8')).toBe(before);
    }
    // `--file - < same.ndjson`: stdin is that file, so it is the input too.
    const r = await t.cli(['pets', 'add', '--file', '-', '--results', `${t.dir}/./same.ndjson`], { env: { PETSTORE_ENV: 'staging' }, inputFile: file });
    expect(r.exitCode).toBe(2);
    oneError(r, /^error: --results \S+\/\.\/same\.ndjson is the input file \(--file -, stdin\)/);
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect(t.sb.requests().length).toBe(sent);
  });

  it('the --resume journal under another name is continued in place: nothing sent twice, nothing lost', async () => {
    const file = input('resumed.ndjson', 2, 'resumed');
    const first = join(t.dir, 'resumed-results.ndjson');
    expect((await seed(['--file', file, '--results', first])).exitCode).toBe(0);
    const before = readFileSync(first, 'utf8');
    const sent = t.sb.requests().length;
    const r = await seed(['--file', file, '--resume', first, '--results', `${t.dir}/./resumed-results.ndjson`]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain('created 0, failed 0, unknown 0, skipped 2, invalid 0');
    expect(t.sb.requests().length).toBe(sent);
    // Appended to, never rewritten: what the first run wrote is still there, in front.
    expect(readFileSync(first, 'utf8').startsWith(before)).toBe(true);
    expect(stored('resumed')).toEqual(names('resumed', 2));
  });

  it('a --results journal that already holds records, without --resume: exit 2 with the command that continues it, nothing sent, the file untouched', async () => {
    const file = input('again.ndjson', 2, 'again');
    const journal = join(t.dir, 'again-results.ndjson');
    expect((await seed(['--file', file, '--results', journal])).exitCode).toBe(0);
    const before = readFileSync(journal, 'utf8');
    const sent = t.sb.requests().length;
    const r = await seed(['--file', file, '--results', journal]);
    expect(r.exitCode).toBe(2);
    oneError(
      r,
      new RegExp(
        `^error: --results ${journal.replaceAll('.', '\\.')} is a journal holding records \\(created 2\\); continue it with: petstore pets add --file ${file.replaceAll('.', '\\.')} --results ${journal.replaceAll('.', '\\.')} --resume`,
      ),
    );
    expect(readFileSync(journal, 'utf8')).toBe(before);
    expect(t.sb.requests().length).toBe(sent);
  });

  it('a missing folder or a folder: exit 2, the path and the problem named, before the records are checked', async () => {
    // An invalid record: had the records been checked first, its line would be reported.
    const file = join(t.dir, 'invalid.ndjson');
    writeFileSync(file, '{"name":"","categoryId":1}\n');
    const sent = t.sb.requests().length;
    const missing = await seed(['--file', file, '--results', join(t.dir, 'nowhere', 'r.ndjson')]);
    expect(missing.exitCode).toBe(2);
    oneError(missing, /^error: --results \S+\/nowhere\/r\.ndjson: the folder \S+\/nowhere does not exist; nothing was sent$/);
    expect(missing.stderr).not.toContain('line 1');
    const folder = await seed(['--file', file, '--results', t.dir]);
    expect(folder.exitCode).toBe(2);
    oneError(folder, /^error: --results \S+: cannot write there: it is a folder \(EISDIR\); nothing was sent$/);
    expect(t.sb.requests().length).toBe(sent);
  });

  it('a run refused after the check (an invalid record) leaves an existing results file as it was and creates no new one', async () => {
    const file = join(t.dir, 'invalid2.ndjson');
    writeFileSync(file, '{"name":"","categoryId":1}\n');
    const existing = join(t.dir, 'existing.ndjson');
    writeFileSync(existing, '{"line":1,"status":"created","pet":{"id":1,"name":"x","categoryId":1}}\n');
    expect((await seed(['--file', file, '--results', existing])).exitCode).toBe(2);
    expect(readFileSync(existing, 'utf8')).toContain('"status":"created"');
    expect((await seed(['--file', file, '--results', join(t.dir, 'new.ndjson')])).exitCode).toBe(2);
    expect(existsSync(join(t.dir, 'new.ndjson'))).toBe(false);
  });
});

describe.skipIf(missingTool('/dev/full', existsSync('/dev/full')))('a full disk under the journal: /dev/full', () => {
  it('the journal cannot take its first line: exit 1 with one line naming the file and ENOSPC, nothing sent', async () => {
    const file = input('full.ndjson', 300, 'full');
    const sent = t.sb.requests().length;
    const r = await seed(['--file', file, '--results', '/dev/full', '--concurrency', '2']);
    expect(r.exitCode).toBe(1);
    oneError(r, /^error: cannot write --results \/dev\/full: no space left on the device \(ENOSPC\); nothing was sent$/);
    expect(t.sb.requests().length).toBe(sent);
    expect(stored('full')).toEqual([]);
  });
});

describe('a full disk under the results file: a 16 KiB tmpfs', () => {
  const tiny = useTinyTmpfs(() => join(t.dir, 'tiny'));

  it('stops at once, exit 1, the journal ends with a whole line; a resume from a copy creates each pet once', async (ctx) => {
    if (tiny.skipped(ctx)) return;
    const file = input('tiny.ndjson', 400, 'tiny');
    const path = join(tiny.dir, 'results.ndjson');
    const r = await seed(['--file', file, '--results', path, '--concurrency', '4']);
    expect(r.exitCode).toBe(1);
    oneError(
      r,
      /^error: cannot write --results \S+\/tiny\/results\.ndjson: no space left on the device \(ENOSPC\); stopped sending after \d+ of 400 records(; the \d+ outcome lines? it could not take (is|are) on stdout: append)?/,
    );
    const text = readFileSync(path, 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    const written = results(text);
    const lost = results(r.stdout);
    expect(written.length).toBeGreaterThan(50);
    expect(stored('tiny').length).toBeLessThan(400);
    // Every pet created is in the journal or on stdout: nothing the server holds is unrecorded.
    expect([...written, ...lost].filter((l) => l.status === 'created')).toHaveLength(stored('tiny').length);

    // Without the lines from stdout: the records they were for are unknown to a resume, never resent.
    const bare = join(t.dir, 'tiny-bare.ndjson');
    writeFileSync(bare, text);
    const dry = await seed(['--file', file, '--resume', bare, '--dry-run']);
    expect(dry.exitCode, dry.stderr).toBe(3);
    expect(dry.stderr).toContain(`unknown ${lost.length}`);

    // With them appended (the message says so): every record created exactly once.
    const copy = join(t.dir, 'tiny-copy.ndjson');
    writeFileSync(copy, text + r.stdout);
    const again = await seed(['--file', file, '--resume', copy]);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).not.toContain('incomplete');
    expect(stored('tiny')).toEqual(names('tiny', 400));
  });

  it('a read-only file system: exit 2, the path and EROFS named, nothing sent', async (ctx) => {
    if (tiny.skipped(ctx)) return;
    const ro = join(t.dir, 'ro');
    mkdirSync(ro, { recursive: true });
    expect(spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=16k,ro', 'tmpfs', ro]).status).toBe(0);
    try {
      const sent = t.sb.requests().length;
      const r = await seed(['--file', input('ro.ndjson', 2), '--results', join(ro, 'r.ndjson')]);
      expect(r.exitCode).toBe(2);
      oneError(r, /^error: --results \S+\/ro\/r\.ndjson: cannot write there: read-only file system \(EROFS\); nothing was sent$/);
      expect(t.sb.requests().length).toBe(sent);
    } finally {
      spawnSync('umount', [ro]);
    }
  });
});
