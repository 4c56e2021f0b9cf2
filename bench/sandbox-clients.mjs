// Why the sandbox spends more CPU per request for some clients: one sandbox process (bench/sandbox-child.mjs,
// its bundle given), the same 5,000 POSTs from `petstore pets add --file`, bench/pool-client.mjs and
// autocannon (8 connections, 1 connection, and 8 with the CLI's own headers), interleaved. For each: the
// sandbox's user and system CPU, read/write system calls (/proc/<pid>/io syscr, syscw) and voluntary /
// involuntary context switches (/proc/<pid>/status) per request, and the client's req/s (autocannon's is
// capped near 5,000 by its `amount` mode, which notices the end only on its 1 s tick).
//   npx node bench/sandbox-clients.mjs <sandbox bundle.mjs> [rounds]
// (bench/sandbox-ab.mjs bundles src/sandbox; or: npx esbuild src/sandbox/index.ts --bundle --format=esm
// --platform=node --outfile=/tmp/sandbox.mjs). Linux only (/proc).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { forkServer } from './child-ipc.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const [lib, roundsText = '3'] = process.argv.slice(2);
const tmp = mkdtempSync(join(tmpdir(), 'sandbox-clients-'));
const N = 5000;
const key = 'bench-key-clients';
const file = join(tmp, 'pets.ndjson');
const statuses = ['available', 'pending', 'sold'];
writeFileSync(
  file,
  Array.from(
    { length: N },
    (_, i) => `${JSON.stringify({ name: `bench-pet-${i + 1}`, categoryId: ((i + 1) % 97) + 1, status: statuses[(i + 1) % 3] })}\n`,
  ).join(''),
);

const options = { port: 0, keys: [key], perMinute: 1e9, perDay: 1e12, ban: false, recordRequests: false };
const { child, next } = forkServer('bench/sandbox-child.mjs', [resolve(lib), JSON.stringify(options)]);
const { baseUrl } = await next('ready');
const ask = async (type) => {
  child.send({ type });
  return next(type);
};

/** The sandbox process's counters now. */
async function counters() {
  const { cpu } = await ask('cpu');
  const { stats } = await ask('stats');
  const io = readFileSync(`/proc/${child.pid}/io`, 'utf8');
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  const field = (text, name) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(text)?.[1]);
  return {
    requests: stats.requests,
    user: cpu.user,
    system: cpu.system,
    reads: field(io, 'syscr'),
    writes: field(io, 'syscw'),
    voluntary: field(status, 'voluntary_ctxt_switches'),
    involuntary: field(status, 'nonvoluntary_ctxt_switches'),
  };
}

const body = JSON.stringify({ name: 'bench-pet', categoryId: 1, status: 'available' });
const load =
  (connections, headers = {}) =>
  () =>
    autocannon({
      url: `${baseUrl}/pets`,
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
      body,
      connections,
      amount: N,
    });
const spawnClient = (argv, env) => () => {
  const r = spawnSync(process.execPath, argv, { env, stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0) throw new Error(`${argv[0]} exited ${r.status}`);
};
const cliEnv = () => {
  const config = mkdtempSync(join(tmp, 'config-'));
  return {
    PATH: process.env.PATH,
    HOME: tmp,
    NO_COLOR: '1',
    PETSTORE_CONFIG_DIR: config,
    PETSTORE_STATE_DIR: join(config, 'state'),
    PETSTORE_BASE_URL: baseUrl,
    PETSTORE_API_KEY: key,
  };
};
const clients = {
  'petstore pets add --file': () =>
    spawnClient([join(ROOT, 'bin/petstore'), '--quiet', 'pets', 'add', '--file', file, '--concurrency', '8', '--yes'], cliEnv())(),
  'pool-client.mjs': spawnClient([join(ROOT, 'bench/pool-client.mjs'), baseUrl, key, String(N), '8'], process.env),
  'autocannon 8': load(8),
  'autocannon 1': load(1),
  // The CLI's request headers, sent by autocannon: what the CLI sends, at autocannon's pace.
  'autocannon 8, CLI headers': load(8, { accept: 'application/json', 'user-agent': 'petstore-cli/0.1.0' }),
};

const got = {};
await load(8)(); // warm-up (JIT)
for (let round = 0; round < Number(roundsText); round++) {
  for (const [name, run] of Object.entries(clients)) {
    const before = await counters();
    const started = performance.now();
    await run();
    const seconds = (performance.now() - started) / 1000;
    const after = await counters();
    const n = after.requests - before.requests;
    const per = (k) => (after[k] - before[k]) / n;
    (got[name] ??= []).push({
      rps: n / seconds,
      user: per('user'),
      system: per('system'),
      reads: per('reads'),
      writes: per('writes'),
      voluntary: per('voluntary'),
      involuntary: per('involuntary'),
    });
  }
}
child.send({ type: 'close' });
rmSync(tmp, { recursive: true, force: true });

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const mmm = (xs, d) => `${Math.min(...xs).toFixed(d)}/${median(xs).toFixed(d)}/${Math.max(...xs).toFixed(d)}`;
console.log(`${roundsText} rounds of ${N} POSTs each; sandbox process per request, min/median/max`);
for (const [name, rows] of Object.entries(got)) {
  const col = (k, d) =>
    mmm(
      rows.map((r) => r[k]),
      d,
    );
  console.log(
    `${name.padEnd(26)} req/s ${col('rps', 0)}  CPU user ${col('user', 1)} µs, system ${col('system', 1)} µs  read ${col('reads', 2)} write ${col('writes', 2)}  context switches voluntary ${col('voluntary', 2)} involuntary ${col('involuntary', 2)}`,
  );
}
