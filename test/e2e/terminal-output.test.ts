import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import stringWidth from 'string-width';
import { E2E_KEY, e2e, type E2E } from '../helpers/e2e.js';
import { hasScript, runOnPty } from '../helpers/pty.js';

// Hostile names as a server could store them: a title-setting OSC, clear screen, a C1 CSI, DEL, a
// right-to-left override, an isolate, and a tab and a newline inside the name.
const HOSTILE = ['x\u001b]0;pwned\u0007y', 'clear\u001b[2J', 'c1\u009b31m', 'del\u007f', '\u202egpj.exe', 'iso\u2066late\u2069', 'tab\there', 'two\nlines'];
/** What the data may never put on the terminal: C0 but the terminal's own newline and CR, C1, DEL, bidi controls, and the U+FFFD of a lone C1 byte. */
const RAW = /[\u0000-\u0009\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\ufffd]/;

let t: E2E;
beforeAll(async () => {
  t = await e2e();
  t.sb.seed([
    ...HOSTILE.map((name, i) => ({ name, categoryId: i + 1, status: 'available' as const })),
    { name: `Sir ${'Fluffington '.repeat(10)}the Third`, categoryId: 9007199254740993n, status: 'pending' as const },
    { name: '猫ちゃん🐈‍⬛ '.repeat(8), categoryId: 2 },
  ]);
});
afterAll(() => t.close());

const env = {
  get value() {
    return { PETSTORE_CONFIG_DIR: t.configDir, PETSTORE_BASE_URL: t.sb.baseUrl, PETSTORE_API_KEY: E2E_KEY, HOME: t.dir, NO_COLOR: '1' };
  },
};

describe.runIf(hasScript)("server data on a real terminal (pseudo-terminal, no colour: any ESC would be the data's)", () => {
  it.each([['table'], ['csv'], ['json'], ['ndjson']])('-o %s: every hostile name arrives escaped, nothing raw', async (format) => {
    const r = await runOnPty(['pets', 'list', '-o', format], { env: env.value, cols: 200 });
    expect(r.exitCode).toBe(0);
    expect(r.output).not.toMatch(RAW);
    expect(r.output).not.toContain('\u001b');
    const esc = format === 'json' || format === 'ndjson' ? '\\u001b' : '\\x1b';
    expect(r.output).toContain(`x${esc}]0;pwned${esc === '\\x1b' ? '\\x07' : '\\u0007'}y`);
    expect(r.output).toContain('\\u202egpj.exe');
    expect(r.output).toContain(format === 'json' || format === 'ndjson' ? 'c1\\u009b31m' : 'c1\\x9b31m');
  });

  it('pets add --file --dry-run past 64 KB (its lines held in a file first): every hostile name escaped, nothing raw', async () => {
    // DEL, C1 and bidi controls stand raw in JSON strings; an ESC must be written \u001b, and stays so.
    const names = ['\u202egpj.exe', 'del\u007f', 'c1\u009b31m', 'iso\u2066late\u2069', 'x\u001b]0;pwned\u0007y'];
    const lines = Array.from({ length: 1500 }, (_, i) => JSON.stringify({ name: `${names[i % names.length]}-${i + 1}`, categoryId: i + 1 }));
    const file = join(t.dir, 'hostile.ndjson');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const r = await runOnPty(['pets', 'add', '--file', file, '--dry-run'], { env: env.value, cols: 200, timeoutMs: 20_000 });
    expect(r.exitCode).toBe(0);
    expect(r.output).not.toMatch(RAW);
    expect(r.output).toContain('"name":"\\u202egpj.exe-1496"');
    expect(r.output).toContain('"name":"c1\\u009b31m-1498"');
    expect(r.output).toContain('"name":"x\\u001b]0;pwned\\u0007y-1500"');
  });

  it('petstore api: the body and the -i headers', async () => {
    const r = await runOnPty(['api', '/pets', '-i'], { env: env.value });
    expect(r.exitCode).toBe(0);
    expect(r.output).toContain('HTTP 200 OK');
    expect(r.output).not.toMatch(RAW);
    expect(r.output).toContain('\\u202egpj.exe');
  });

  it('pets list at 80 columns: no line wider than the terminal, long names cut with "…", ids whole, a hint on stderr', async () => {
    const r = await runOnPty(['pets', 'list', '--limit', '10'], { env: env.value, cols: 80 });
    expect(r.exitCode).toBe(0);
    const lines = r.output.trimEnd().split('\n');
    for (const line of lines) expect(stringWidth(line)).toBeLessThanOrEqual(80);
    expect(lines[0]).toMatch(/^ID +NAME +CATEGORY ID +STATUS$/);
    expect(r.output).toMatch(/\n9 +Sir Fluffington .*… {2}9007199254740993 {2}pending\n/);
    expect(r.output).toMatch(/\n10 +猫ちゃん.*… {2}2\n/);
    // The heading, 10 pets (one line each: newlines escaped), then the hint: a full page may not be all.
    expect(lines.slice(1, 11).every((line) => /^\d+ /.test(line))).toBe(true);
    expect(lines[11]).toBe('Showing 10 pets; there may be more: use --limit (max 100)');
  });
});
