// `npm run demo`: a short tour of the CLI against a sandbox that this script
// starts and stops itself, with a throw-away config folder.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../bin/petstore', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'petstore-demo-'));
const key = 'sk_demo_0123456789abcdef';
const env = { ...process.env, PETSTORE_CONFIG_DIR: join(dir, 'config') };
for (const name of ['PETSTORE_BASE_URL', 'PETSTORE_API_KEY', 'PETSTORE_ENV']) delete env[name];

const sandbox = spawn(process.execPath, [bin, 'sandbox', '--port', '0', '--key', key], { env, stdio: ['ignore', 'pipe', 'pipe'] });
const baseUrl = await new Promise((resolve, reject) => {
  let out = '';
  sandbox.stdout.on('data', (chunk) => {
    out += chunk;
    if (out.includes('\n')) resolve(out.split('\n')[0].trim());
  });
  sandbox.on('exit', (code) => reject(new Error(`sandbox exited early (${code})`)));
});

function step(args, { input, note } = {}) {
  if (note) process.stdout.write(`\n# ${note}\n`);
  process.stdout.write(`$ ${input !== undefined ? `echo ${JSON.stringify(input.trim())} | ` : ''}petstore ${args.join(' ')}\n`);
  const r = spawnSync(process.execPath, [bin, ...args], { env, input: input ?? '', encoding: 'utf8' });
  process.stdout.write(r.stdout);
  process.stdout.write(r.stderr.replace(/^/gm, '  (stderr) ').replace(/ {2}\(stderr\) $/, ''));
  if (r.status !== 0) process.stdout.write(`  (exit ${r.status})\n`);
  return r;
}

try {
  console.log(`petstore demo: a sandbox is running at ${baseUrl} (key ${key})`);
  step(['env', 'set', 'sandbox', baseUrl], { note: 'point the CLI at the sandbox and make it the default' });
  step(['env', 'use', 'sandbox']);
  step(['auth', 'login'], { input: `${key}\n`, note: 'store the key (read from stdin; on a terminal it is a hidden prompt)' });
  step(['auth', 'status']);
  step(['pets', 'add', '--name', 'Rex', '--category-id', '1', '--status', 'available'], { note: 'add pets' });
  step(['pets', 'add', '--name', 'Big Id', '--category-id', '9007199254740993']);
  const csv = join(dir, 'pets.csv');
  writeFileSync(csv, 'name,categoryId,status\nTom,2,pending\n"Ann, the cat",3,sold\nBo,2,available\n');
  step(['pets', 'add', '--file', csv, '-o', 'table'], { note: 'seed several from a CSV file' });
  step(['pets', 'list'], { note: 'list them (a table on a terminal, tab-separated in a pipe)' });
  step(['pets', 'list', '--status', 'available', '-o', 'json']);
  step(['pets', 'get', '2'], { note: 'fetch one (deprecated endpoint: a warning on stderr)' });
  step(['pets', 'list', '--limit', '500'], { note: 'bad input: one line, exit 2, nothing sent' });
  step(['pets', 'get', '999'], { note: 'not found: exit 5' });
  step(['quota', '--cached'], { note: 'the rate-limit quota the server reported last' });
} finally {
  sandbox.kill('SIGINT');
  await new Promise((r) => sandbox.on('exit', r));
  rmSync(dir, { recursive: true, force: true });
  console.log('\nsandbox stopped; demo config removed.');
}
