import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { E2E_KEY, e2e, type E2E } from '../helpers/e2e.js';
import { hasScript, runOnPty } from '../helpers/pty.js';

let t: E2E;
beforeAll(async () => {
  t = await e2e();
  t.sb.seed([
    { name: 'Rex', categoryId: 1, status: 'available' },
    { name: 'Tom, "the cat"', categoryId: 2 },
  ]);
});
afterAll(() => t.close());

const ptyEnv = (extra: Record<string, string> = {}) => ({
  PETSTORE_CONFIG_DIR: t.configDir,
  PETSTORE_BASE_URL: t.sb.baseUrl,
  PETSTORE_API_KEY: E2E_KEY,
  HOME: t.dir,
  ...extra,
});

describe('output formats of the built CLI (stdout is a pipe)', () => {
  it('table: tab-separated with a header line, no colour, no borders', async () => {
    const r = await t.cli(['pets', 'list'], { env: { FORCE_COLOR: undefined } });
    expect(r.stdout).toBe('id\tname\tcategoryId\tstatus\n1\tRex\t1\tavailable\n2\tTom, "the cat"\t2\t\n');
    expect(r.stdout).not.toContain('\u001b');
  });

  it('json: compact; --json is the same', async () => {
    const expected = '[{"id":1,"name":"Rex","categoryId":1,"status":"available"},{"id":2,"name":"Tom, \\"the cat\\"","categoryId":2}]\n';
    expect((await t.cli(['pets', 'list', '-o', 'json'])).stdout).toBe(expected);
    expect((await t.cli(['pets', 'list', '--json'])).stdout).toBe(expected);
    expect((await t.cli(['pets', 'list', '--output=json'])).stdout).toBe(expected);
  });

  it('ndjson: one object per line', async () => {
    const r = await t.cli(['pets', 'list', '-o', 'ndjson']);
    expect(
      r.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l).name),
    ).toEqual(['Rex', 'Tom, "the cat"']);
  });

  it('csv: RFC 4180 quoting', async () => {
    const r = await t.cli(['pets', 'list', '-o', 'csv']);
    expect(r.stdout).toBe('id,name,categoryId,status\n1,Rex,1,available\n2,"Tom, ""the cat""",2,\n');
  });

  it('nothing but data on stdout: notes and warnings go to stderr', async () => {
    const r = await t.cli(['pets', 'get', '1', '-o', 'json']);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: 1 });
    expect(r.stderr).toContain('deprecated');
  });
});

describe.runIf(hasScript)('output on a terminal (pseudo-terminal)', () => {
  it('table: borderless aligned columns under upper-case headings, with colour', async () => {
    const r = await runOnPty(['pets', 'list'], { env: ptyEnv() });
    expect(r.exitCode).toBe(0);
    expect(r.output).not.toContain('┌');
    expect(r.output).toContain('Rex');
    expect(r.output).toContain('\u001b[');
    expect(r.output.replace(/\u001b\[\d+m/g, '')).toContain('ID  NAME            CATEGORY ID  STATUS\n1   Rex             1            available\n');
  });

  it('table: no colour with NO_COLOR or --no-color', async () => {
    for (const [args, env] of [
      [['pets', 'list'], { NO_COLOR: '1' }],
      [['pets', 'list', '--no-color'], {}],
    ] as const) {
      const r = await runOnPty([...args], { env: ptyEnv(env) });
      expect(r.output).toContain('NAME');
      expect(r.output).not.toContain('\u001b[');
    }
  });

  it('json: pretty', async () => {
    const r = await runOnPty(['pets', 'list', '-o', 'json', '--no-color'], { env: ptyEnv() });
    expect(r.output).toContain('[\n  {\n    "id": 1,\n    "name": "Rex",');
  });
});
