// A single `pets add` answered with a redirect: the POST is not followed and the server may have
// processed it before redirecting, so the outcome is unknown (exit 7, as after a reset once the body
// went out): the message names the pet and the Location, and says to check before adding it again.
import { afterAll, describe, expect, it } from 'vitest';
import { parseJson } from '../../src/json/int64.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { startFaultServer, type Fault } from '../helpers/fault-server.js';

const KEY = 'sk_add_redirect_key_5c2e8d';
const tmp = tempDir('petstore-add-redirect-');
afterAll(() => tmp.cleanup());

async function addAgainst(fault: Fault, extra: string[] = []) {
  const s = await startFaultServer(() => fault);
  try {
    const r = await runCli(['pets', 'add', '--name', 'Rex', '--category-id', '3', ...extra], {
      configDir: tmp.dir,
      env: { PETSTORE_BASE_URL: s.baseUrl, PETSTORE_API_KEY: KEY, PETSTORE_ENV: 'staging' },
    });
    return { ...r, posts: s.requests().map((q) => `${q.method} ${q.path}`) };
  } finally {
    await s.close();
  }
}

const unknown = (to: string, status: number) =>
  `error: outcome unknown for pet {"name":"Rex","categoryId":3}: redirected${to} (HTTP ${status} with an empty body); ` +
  'a redirected POST is not followed, and the server may have processed it: check with "petstore pets list" before adding it again\n';

describe('pets add answered with a redirect', () => {
  for (const status of [301, 302, 303, 307, 308]) {
    it(`${status} with a Location: outcome unknown, exit 7, sent once, nothing on stdout`, async () => {
      const r = await addAgainst({ kind: 'respond', status, headers: { location: '/v1/pets/elsewhere' } });
      expect(r.exitCode, r.stderr).toBe(7);
      expect(r.stderr).toBe(unknown(' to /v1/pets/elsewhere', status));
      expect(r.stdout).toBe('');
      expect(r.posts).toEqual(['POST /v1/pets']);
    });
  }

  it('without a Location, and with -o json: the same, with the status in the JSON error', async () => {
    const r = await addAgainst({ kind: 'respond', status: 302 }, ['-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(7);
    const [line, object] = r.stderr.split('\n');
    expect(`${line}\n`).toBe(unknown('', 302));
    expect(parseJson(object!)).toMatchObject({ error: { code: 'outcome_unknown', status: 302, exitCode: 7 } });
    expect(r.posts).toEqual(['POST /v1/pets']);
  });
});
