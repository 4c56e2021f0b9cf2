// Property: whatever bytes config.json holds, loading it either works or fails
// with a UsageError (exit 2) that names the file, and the file is never
// rewritten: the user's keys stay where they are. Checked on ConfigStore
// directly and through the in-process CLI.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigStore } from '../../../src/config/store.js';
import { requireBaseUrl, resolveEnvName } from '../../../src/config/target.js';
import { UsageError } from '../../../src/errors/errors.js';
import { runInProcess } from '../../helpers/inprocess.js';
import { MOCK_BASE_URL, MOCK_KEY, mockApi, tempConfigDir } from '../../helpers/mock-api.js';

const RUNS = Number(process.env.PROPERTY_RUNS ?? 300);
const CLI_RUNS = 100;

const cfg = tempConfigDir();
afterAll(() => cfg.cleanup());

const anyJson = fc.jsonValue({ maxDepth: 3 });
const entry = fc.oneof(
  fc.record({ baseUrl: fc.oneof(fc.webUrl(), fc.string(), anyJson), apiKey: fc.oneof(fc.string(), anyJson) }, { requiredKeys: [] }),
  anyJson,
);
/** Configs near the real shape: right keys, wrong types, odd names, __proto__. */
const nearConfig = fc
  .record(
    {
      currentEnv: fc.oneof(fc.constantFrom('production', 'staging', 'nope', ''), fc.string(), anyJson),
      envs: fc.oneof(
        fc.dictionary(fc.oneof(fc.constantFrom('staging', 'production', '__proto__', 'constructor', ''), fc.string()), entry, { maxKeys: 4 }),
        anyJson,
      ),
      extra: anyJson,
    },
    { requiredKeys: [] },
  )
  .map((o) => JSON.stringify(o));

const bytes = fc.oneof(
  fc.uint8Array({ maxLength: 200 }).map((a) => Buffer.from(a)),
  fc.string({ unit: 'binary', maxLength: 200 }).map((s) => Buffer.from(s)),
  fc.json().map((s) => Buffer.from(s)),
  nearConfig.map((s) => Buffer.from(s)),
  nearConfig.map((s) => Buffer.from(s.slice(0, Math.max(0, s.length - 1)))),
  nearConfig.map((s) => Buffer.from(`\uFEFF${s}`)),
  fc
    .constantFrom('', ' ', 'null', '[]', '{}', '{"envs":null}', '{"__proto__":{"currentEnv":1}}', '{"envs":{"__proto__":{"apiKey":1}}}')
    .map((s) => Buffer.from(s)),
);

let n = 0;
/** A fresh folder holding config.json with these bytes. */
function folderWith(content: Buffer): string {
  const dir = join(cfg.dir, `c${n++}`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(join(dir, 'config.json'), content, { mode: 0o600 });
  return dir;
}

describe('config loading (property)', () => {
  it(`ConfigStore: loads, or throws a UsageError naming the file; the file is never changed (${RUNS} runs)`, () => {
    fc.assert(
      fc.property(bytes, (content) => {
        const dir = folderWith(content);
        const file = join(dir, 'config.json');
        try {
          const store = new ConfigStore(dir);
          // Everything a command reads from a loaded store works.
          expect(typeof store.currentEnv()).toBe('string');
          const envs = store.envs();
          expect(Object.keys(envs)).toEqual(expect.arrayContaining(['production', 'staging']));
          try {
            const { envName, entry } = resolveEnvName(store, {}, undefined);
            requireBaseUrl(entry, {}, envName);
          } catch (error) {
            expect(error).toBeInstanceOf(UsageError);
          }
        } catch (error) {
          expect(error, String(error)).toBeInstanceOf(UsageError);
          expect((error as UsageError).message).toContain(file);
          expect((error as UsageError).message).not.toMatch(/\n/);
        }
        expect(readFileSync(file).equals(content)).toBe(true);
        rmSync(dir, { recursive: true, force: true });
      }),
      { numRuns: RUNS },
    );
  });

  it(`the CLI (env list, env show, pets list): exit 0 or 2 with one error line, nothing sent for a broken file, file unchanged (${CLI_RUNS} runs)`, async () => {
    const api = mockApi();
    api.on('GET', (p) => p.startsWith('/v1/pets'), { status: 200, body: '[]' });
    try {
      await fc.assert(
        fc.asyncProperty(bytes, fc.constantFrom(['env', 'list', '-o', 'json'], ['env', 'show'], ['pets', 'list']), async (content, args) => {
          const dir = folderWith(content);
          const file = join(dir, 'config.json');
          const before = api.requests.length;
          // The URL and key come from the environment, so only the file decides the outcome.
          const r = await runInProcess([...args], {
            dispatcher: api.agent,
            env: { PETSTORE_CONFIG_DIR: dir, PETSTORE_BASE_URL: MOCK_BASE_URL, PETSTORE_API_KEY: MOCK_KEY },
          });
          expect(r.stderr).not.toMatch(/^\s+at |unexpected error/m);
          expect([0, 2], r.stderr).toContain(r.exitCode);
          if (r.exitCode !== 0) {
            expect(r.stderr.split('\n').filter((l) => l.startsWith('error: '))).toHaveLength(1);
            expect(api.requests.length).toBe(before);
          }
          expect(readFileSync(file).equals(content)).toBe(true);
          rmSync(dir, { recursive: true, force: true });
        }),
        // Random bytes rarely make a loadable config: the example makes sure that a run reaches the server.
        { numRuns: CLI_RUNS, examples: [[Buffer.from('{}'), ['pets', 'list']]] },
      );
      api.assertAllUsed();
    } finally {
      await api.close();
    }
  });

  it('a broken file is reported with exit 2 and its path, for every command that reads it', async () => {
    const dir = folderWith(Buffer.from('{"envs": {'));
    const r = await runInProcess(['env', 'list'], { env: { PETSTORE_CONFIG_DIR: dir } });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(
      new RegExp(
        `^error: config file ${join(dir, 'config.json').replaceAll('/', '\\/')} is not valid JSON .*; fix or move it aside, then run the command again\\n$`,
      ),
    );
  });
});
