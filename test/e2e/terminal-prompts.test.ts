// `pets add` at a terminal asks for what the command line left out (issue #34, item 1), as gh does: on a
// real pseudo-terminal, typed key by key, the screen rendered by @xterm/headless, and what the sandbox
// received checked. Off a terminal, with --no-input or in CI it still fails with exit 2, nothing sent.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { E2E_KEY, e2e, type E2E } from '../helpers/e2e.js';
import { hasScript, runOnPty } from '../helpers/pty.js';

let t: E2E;
beforeAll(async () => {
  t = await e2e();
});
afterAll(() => t.close());
beforeEach(() => t.sb.clearRequests());

const ptyEnv = (more: Record<string, string> = {}) => ({
  PETSTORE_CONFIG_DIR: t.configDir,
  PETSTORE_BASE_URL: t.sb.baseUrl,
  PETSTORE_API_KEY: E2E_KEY,
  HOME: t.dir,
  ...more,
});
const DOWN = '\u001b[B';
const MISSING = 'error: missing --name: "pets add" needs --name and --category-id (or --file)';

describe.skipIf(!hasScript)('pets add at a terminal', () => {
  it('asks for the name, the category id (refusing a bad one as the flag does) and the status, then creates the pet', async () => {
    const r = await runOnPty(['pets', 'add'], {
      env: ptyEnv(),
      steps: [
        { waitFor: 'Name', type: '\r' },
        { waitFor: 'must be a non-empty name', type: 'Rex the 2nd\r' },
        { waitFor: 'Category id', type: '9223372036854775808\r' },
        { waitFor: 'invalid category id', type: '\u0015' },
        { waitFor: 'Category id', type: '9007199254740993\r' },
        { waitFor: 'navigate', type: `${DOWN}${DOWN}\r` },
      ],
    });
    expect(r.exitCode, r.output).toBe(0);
    const screen = await r.screen();
    expect(screen.slice(0, 3)).toEqual(['? Name Rex the 2nd', '? Category id 9007199254740993', '? Status pending']);
    expect(screen.slice(3)).toEqual([
      expect.stringMatching(/^ID\s+NAME\s+CATEGORY ID\s+STATUS$/),
      expect.stringMatching(/^\d+\s+Rex the 2nd\s+9007199254740993\s+pending$/),
    ]);
    const posts = t.sb.requests().filter((q) => q.method === 'POST');
    expect(posts.map((q) => q.body)).toEqual(['{"name":"Rex the 2nd","categoryId":9007199254740993,"status":"pending"}']);
  }, 30_000);

  it('asks only for what is missing; "none", the default, sends no status; -o json prints the created pet', async () => {
    const r = await runOnPty(['pets', 'add', '--name', 'Tom', '-o', 'json'], {
      env: ptyEnv({ NO_COLOR: '1' }),
      steps: [
        { waitFor: 'Category id', type: '7\r' },
        { waitFor: 'navigate', type: '\r' },
      ],
    });
    expect(r.exitCode, r.output).toBe(0);
    const screen = await r.screen();
    expect(screen.join('\n')).not.toContain('Name');
    expect(screen.slice(0, 2)).toEqual(['? Category id 7', '? Status none']);
    expect(screen.join('\n')).toMatch(/"name": "Tom",\n\s+"categoryId": 7\n/);
    expect(t.sb.requests().map((q) => q.body)).toEqual(['{"name":"Tom","categoryId":7}']);
  }, 30_000);

  it('Ctrl-C in a prompt: exit 130, nothing sent', async () => {
    const r = await runOnPty(['pets', 'add', '--category-id', '3'], {
      env: ptyEnv(),
      steps: [
        { waitFor: 'Name', type: 'Half' },
        { waitFor: 'Half', type: '\u0003' },
      ],
    });
    expect(r.exitCode, r.output).toBe(130);
    expect(await r.screen()).toContain('error: interrupted');
    expect(t.sb.requests()).toEqual([]);
  }, 30_000);

  it('a flag given with a bad value is refused before any question', async () => {
    const r = await runOnPty(['pets', 'add', '--category-id', 'x'], { env: ptyEnv() });
    expect(r.exitCode).toBe(2);
    expect((await r.screen()).join('')).toMatch(/^error: invalid --category-id "x": must be a whole number from .* to 9223372036854775807$/);
    expect(t.sb.requests()).toEqual([]);
  }, 30_000);

  it.each([
    ['--no-input', ['pets', 'add', '--no-input'], {}],
    ['CI set', ['pets', 'add'], { CI: 'true' }],
  ])(
    '%s: no question, exit 2, nothing sent',
    async (_, args, env) => {
      const r = await runOnPty(args, { env: ptyEnv(env) });
      expect(r.exitCode).toBe(2);
      expect(await r.screen()).toEqual([MISSING]);
      expect(t.sb.requests()).toEqual([]);
    },
    30_000,
  );
});

describe('pets add off a terminal', () => {
  it('stdin not a terminal: no question, exit 2, nothing sent', async () => {
    const r = await t.cli(['pets', 'add', '--name', 'Rex']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toBe('error: missing --category-id: "pets add" needs --name and --category-id (or --file)\n');
    expect(t.sb.requests()).toEqual([]);
  });
});
