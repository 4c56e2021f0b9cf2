// A server that echoes the key back in every form a server might (raw, JSON-escaped with \/, URL-encoded,
// base64, base64url, in a header, right across the --debug cut of a body): every command path that prints
// is run against it, and stdout, stderr and the results file are scanned for any 6-character run of the
// key in any of those forms (src/output/redact.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
import { fakeServer } from '../helpers/e2e.js';

// A key with the characters that encode differently in each form.
const KEY = 'sk_live/Ab+Cd=Ef/0123456789+xyz';

function forms(k: string): string[] {
  const json = JSON.stringify(k).slice(1, -1);
  return [
    k,
    json,
    json.replaceAll('/', '\\/'),
    encodeURIComponent(k),
    encodeURIComponent(k).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
    new URLSearchParams({ k }).toString().slice(2),
    Buffer.from(k).toString('base64'),
    Buffer.from(k).toString('base64url'),
  ];
}

function leak(text: string): string | undefined {
  for (const f of forms(KEY)) for (let i = 0; i + 6 <= f.length; i++) if (text.includes(f.slice(i, i + 6))) return f.slice(i, i + 6);
  return undefined;
}

/** Every form of the key at once, the raw one placed across the 500-character debug cut. */
function echoBody(): string {
  const pad = 'x'.repeat(500 - 30);
  const echoes = forms(KEY).join(' | ');
  return JSON.stringify({ code: 'bad_request', message: `${pad}${KEY} echoed: ${echoes}`, status: 400 });
}

const tmp = tempDir('petstore-redaction-');
let server: Awaited<ReturnType<typeof fakeServer>>;

beforeAll(async () => {
  server = await fakeServer((req, res) => {
    const headers = {
      'content-type': 'application/json',
      'x-echo-key': KEY,
      'x-echo-b64': Buffer.from(KEY).toString('base64'),
      'set-cookie': `session=${encodeURIComponent(KEY)}`,
      'x-ratelimit-limit': '60',
      'x-ratelimit-remaining': '59',
      'x-ratelimit-reset': String(Math.ceil(Date.now() / 1000) + 60),
    };
    // GETs succeed (with the key in a pet name); POSTs fail with every echo in the message.
    if (req.method === 'GET') {
      res.writeHead(200, headers);
      res.end(
        req.url?.startsWith('/v1/pets/')
          ? JSON.stringify({ id: 1, name: `echo ${KEY}`, categoryId: 1 })
          : JSON.stringify([{ id: 1, name: `echo ${Buffer.from(KEY).toString('base64')}`, categoryId: 1 }]),
      );
      return;
    }
    res.writeHead(400, headers);
    res.end(echoBody());
  });
});
afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

const env = () => ({
  PETSTORE_BASE_URL: server.baseUrl,
  PETSTORE_API_KEY: KEY,
  PETSTORE_CONFIG_DIR: join(tmp.dir, 'cfg'),
  PETSTORE_STATE_DIR: join(tmp.dir, 'state'),
});

describe('a server echoing the key in every form', () => {
  const results = join(tmp.dir, 'results.ndjson');
  const input = join(tmp.dir, 'in.ndjson');
  it.each([
    ['--debug pets list', ['--debug', 'pets', 'list', '-o', 'json']],
    ['--debug pets get', ['--debug', 'pets', 'get', '1']],
    ['--debug pets add (a 400 echoing it)', ['--debug', 'pets', 'add', '--name', 'Rex', '--category-id', '1']],
    ['pets add -o json (the error object)', ['pets', 'add', '--name', 'Rex', '--category-id', '1', '-o', 'json']],
    ['--debug pets add --file (results file)', ['--debug', 'pets', 'add', '--file', input, '--results', results, '--yes']],
    ['api -i GET (headers and body)', ['api', '-i', '/pets/1']],
    ['api -i POST (an error body)', ['api', '-i', '-X', 'POST', '/pets', '-d', '{"name":"Rex","categoryId":1}']],
  ])('%s: no 6-character run of the key in any form on stdout, stderr or the results file', async (_label, args) => {
    const { writeFileSync } = await import('node:fs');
    writeFileSync(input, '{"name":"a","categoryId":1}\n{"name":"b","categoryId":2}\n');
    const r = await runCli(args, { env: env() });
    expect(r.stderr.length + r.stdout.length).toBeGreaterThan(0);
    expect(leak(r.stdout), r.stdout).toBeUndefined();
    expect(
      leak(r.stderr),
      r.stderr
        .split('\n')
        .filter((l) => leak(l))
        .join('\n'),
    ).toBeUndefined();
    if (args.includes('--results')) expect(leak(readFileSync(results, 'utf8')), readFileSync(results, 'utf8')).toBeUndefined();
  });

  it('pets add --file --dry-run past 64 KB (lines masked in blocks on their way out): records holding the key in every form show none of it', async () => {
    const { writeFileSync } = await import('node:fs');
    const all = forms(KEY);
    const lines = Array.from({ length: 2000 }, (_, i) => JSON.stringify({ name: `echo ${all[i % all.length]} ${i + 1}`, categoryId: i + 1 }));
    const big = join(tmp.dir, 'echoes.ndjson');
    writeFileSync(big, `${lines.join('\n')}\n`);
    const r = await runCli(['pets', 'add', '--file', big, '--dry-run'], { env: env() });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.split('\n')).toHaveLength(2001);
    expect(leak(r.stdout)).toBeUndefined();
  });
});
