import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { bundleForWorker } from '../helpers/bundle.js';
import { describe, expect, it } from 'vitest';
import { loadData } from '../../src/sandbox/store.js';
import { runSandbox } from '../../src/commands/sandbox/sandbox.js';
import { SandboxStartError } from '../../src/sandbox/errors.js';
import { parseSandboxOptions } from '../../src/sandbox/options.js';

function capture() {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (c: Buffer) => (text += c.toString()));
  return { stream, text: () => text };
}

async function waitFor(predicate: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('runSandbox', () => {
  it('prints the banner, serves with the generated key, and stops when the signal aborts', async () => {
    const stderr = capture();
    const stdout = capture();
    const ac = new AbortController();
    const done = runSandbox(parseSandboxOptions({ port: '0', window: '3s', perMinute: '5' }), { stderr: stderr.stream, stdout: stdout.stream }, ac.signal);
    await waitFor(() => stdout.text().includes('\n'));
    const baseUrl = stdout.text().trim();
    expect(baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const banner = stderr.text();
    const key = /key: +(sk_sandbox_[\w-]+) +\(generated/.exec(banner)?.[1];
    expect(key).toBeDefined();
    expect(banner).toContain(`petstore sandbox listening on ${baseUrl}`);
    expect(banner).toContain('plan:  free (5 requests per 3s, 1000 per day; per key)');
    // An environment of its own: nothing is stored for production (test/e2e/sandbox-banner.test.ts runs these).
    expect(banner).toContain(`petstore env set sandbox ${baseUrl}\n`);
    expect(banner).toContain(`echo ${key} | petstore auth login --env sandbox\n`);
    expect(banner).toContain('export PETSTORE_ENV=sandbox');
    expect(banner).not.toContain('PETSTORE_BASE_URL');
    expect(banner).not.toMatch(/\bundefined\b/);

    expect((await fetch(`${baseUrl}/pets`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
    expect((await fetch(`${baseUrl}/pets`, { headers: { authorization: 'Bearer other' } })).status).toBe(401);

    ac.abort();
    await done;
    expect(stderr.text()).toContain('stopped');
    await expect(fetch(`${baseUrl}/pets`)).rejects.toThrow();
  });

  it('prints every given key and the data file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'petstore-sandbox-'));
    try {
      const stderr = capture();
      const ac = new AbortController();
      const done = runSandbox(
        parseSandboxOptions({ port: '0', key: ['one', 'two'], plan: 'business', data: join(dir, 'p.json'), ban: false }),
        { stderr: stderr.stream, stdout: new PassThrough() },
        ac.signal,
      );
      await waitFor(() => stderr.text().includes('Ctrl-C'));
      const banner = stderr.text();
      expect(banner).toContain('key:   one\n');
      expect(banner).toContain('key:   two\n');
      expect(banner).toContain('business (1000 requests per 60s, 100000 per day; per key)');
      expect(banner).toContain('ban:   off');
      expect(banner).toContain(`data:  ${join(dir, 'p.json')} (0 pets loaded)`);
      expect(banner).toContain('echo one | petstore auth login --env sandbox');
      ac.abort();
      await done;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('rejects with SandboxStartError when the port is taken', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as { port: number }).port;
    try {
      const err = await runSandbox(
        parseSandboxOptions({ port: String(port) }),
        { stderr: new PassThrough(), stdout: new PassThrough() },
        new AbortController().signal,
      ).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SandboxStartError);
      expect((err as Error).message).toContain('already in use');
    } finally {
      blocker.close();
    }
  });
});

describe('sandbox as a process', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    '%s: finishes, flushes the data file and exits 0',
    async (signal) => {
      const dir = await mkdtemp(join(tmpdir(), 'petstore-sandbox-'));
      try {
        const entry = join(dir, 'entry.ts');
        const runModule = resolve(import.meta.dirname, '../../src/commands/sandbox/sandbox.ts');
        const optionsModule = resolve(import.meta.dirname, '../../src/sandbox/options.ts');
        await writeFile(
          entry,
          `import { runSandbox } from ${JSON.stringify(runModule)};
import { parseSandboxOptions } from ${JSON.stringify(optionsModule)};
const ac = new AbortController();
process.on('SIGTERM', () => ac.abort());
process.on('SIGINT', () => ac.abort());
await runSandbox(parseSandboxOptions(JSON.parse(process.argv[2])), { stdout: process.stdout, stderr: process.stderr }, ac.signal);
process.exit(0);
`,
        );
        const bundle = join(dir, 'entry.mjs');
        await bundleForWorker(entry, bundle);
        const file = join(dir, 'pets.json');
        const child = spawn(process.execPath, [bundle, JSON.stringify({ port: '0', key: ['k'], data: file })], { stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        let err = '';
        child.stdout.on('data', (c: Buffer) => (out += c.toString()));
        child.stderr.on('data', (c: Buffer) => (err += c.toString()));
        const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
        await waitFor(() => out.includes('\n'), 10_000);
        const baseUrl = out.trim();
        for (let i = 0; i < 5; i++) {
          const r = await fetch(`${baseUrl}/pets`, {
            method: 'POST',
            headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
            body: `{"name":"p${i}","categoryId":9223372036854775807}`,
          });
          expect(r.status).toBe(201);
        }
        child.kill(signal);
        expect(await exited).toBe(0);
        expect(err).toContain('stopped; 5 pets saved');
        const doc = await loadData(file);
        expect(doc?.pets).toHaveLength(5);
        expect(doc?.pets[0]?.categoryId).toBe(9223372036854775807n);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
    20_000,
  );
});
