// npm run bench: the speed floors of issue #31. Each floor is a ratio against a reference run side by
// side in the same session (interleaved rounds; the median and quartiles of each round's own ratio), as
// one table on stdout and the same as JSON in bench/results.json. Exits 1 when a floor is not met or a
// row fails. Never part of npm test. bench/README.md explains the rows.
//
//   node bench/run.mjs [--quick] [--only ROW,...] [--bin path/to/petstore | --exe path/to/executable] [--out file|-]
//
// Floors: startup, help, env-list, request, seed-limited, seed, sandbox, dry-run.
// Information only: fleet, fleet-redis.
//
// The CLI is measured only through bin/petstore, the sandbox only through its public startSandbox
// (src/sandbox/index.ts, bundled by esbuild into the temp folder). Servers listen on 127.0.0.1 only.
import { execFileSync, fork, spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const NODE = process.execPath;
const HOOK = pathToFileURL(join(ROOT, 'bench/peak-rss.mjs')).href;
const ROWS = ['startup', 'help', 'env-list', 'request', 'seed-limited', 'seed', 'sandbox', 'dry-run', 'fleet', 'fleet-redis'];

const { values: flags } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    bin: { type: 'string' },
    exe: { type: 'string' },
    out: { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (flags.help) {
  process.stdout.write(
    `${readFileSync(fileURLToPath(import.meta.url), 'utf8')
      .split('\n')
      .slice(0, 12)
      .join('\n')}\n`,
  );
  process.exit(0);
}
const fail = (message) => {
  process.stderr.write(`bench: ${message}\n`);
  process.exit(2);
};
const log = (line) => process.stderr.write(`${line}\n`);
const only = flags.only ? flags.only.split(',').map((s) => s.trim()) : ROWS;
for (const r of only) if (!ROWS.includes(r)) fail(`unknown row "${r}" (rows: ${ROWS.join(', ')})`);
const BIN = resolve(flags.bin ?? join(ROOT, 'bin/petstore'));
// The CLI's command: Node and bin/petstore, or a single executable (npm run package) with --exe.
const CLI = flags.exe ? [resolve(flags.exe)] : [NODE, BIN];
const OUT = flags.out ?? join(ROOT, 'bench/results.json');
/** Rounds of a row: `full` normally, `quick` with --quick. */
const rounds = (full, quick) => (flags.quick ? quick : full);
if (!existsSync(BIN)) fail(`${BIN} not found`);
if (flags.bin === undefined && flags.exe === undefined && !existsSync(join(ROOT, 'dist')))
  fail('dist/ is missing: run `npm run build` first (npm run bench does)');
if (flags.exe && only.includes('dry-run')) fail('--exe cannot run the dry-run row: its peak RSS is read through `node --import`');

// ---------------------------------------------------------------------------------------------
// Statistics, process timing, interleaving

/** Median, quartiles and extremes of a list of numbers. */
function summary(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const at = (p) => {
    const i = (s.length - 1) * p;
    const lo = Math.floor(i);
    return s[lo] + (s[Math.ceil(i)] - s[lo]) * (i - lo);
  };
  return { median: at(0.5), q1: at(0.25), q3: at(0.75), min: s[0], max: s.at(-1), n: s.length };
}

/** Runs a command to its end; resolves to its wall time (ms, spawn to exit) and stdout. */
function timeOnce(cmd, env, okCodes = [0]) {
  return new Promise((done, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(cmd[0], cmd.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      if (stderr.length < 4000) stderr += d;
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (okCodes.includes(code)) done({ ms, stdout });
      else reject(new Error(`${cmd.join(' ')} exited with ${code ?? signal}\n${stderr}`));
    });
  });
}

/**
 * Runs each step once a round, in alternating order (A B, B A, ...) so that neither always runs right
 * after the other; `warmup` rounds first, not kept. Resolves to one list of results per step.
 */
async function interleave(count, warmup, steps) {
  const got = steps.map(() => []);
  for (let i = 0; i < warmup + count; i++) {
    const order = steps.map((_, k) => k);
    if (i % 2 === 1) order.reverse();
    for (const k of order) {
      const value = await steps[k]();
      if (i >= warmup) got[k].push(value);
    }
  }
  return got;
}

// ---------------------------------------------------------------------------------------------
// Fixtures: a temp folder, a clean environment, servers in child processes, record files

const tmp = mkdtempSync(join(tmpdir(), 'petstore-bench-'));
const children = new Set();
process.on('exit', () => {
  for (const c of children) c.kill();
  rmSync(tmp, { recursive: true, force: true });
});
process.on('SIGINT', () => process.exit(130));
process.on('SIGTERM', () => process.exit(143));

/**
 * A clean environment for the CLI: nothing from this shell but PATH (and TMPDIR), no colour, and a fresh
 * config and state folder on each call, so that no seeding run finds an earlier run's journal.
 */
function cliEnv(extra = {}) {
  const config = mkdtempSync(join(tmp, 'config-'));
  return {
    PATH: process.env.PATH ?? '',
    HOME: tmp,
    ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}),
    PETSTORE_CONFIG_DIR: config,
    PETSTORE_STATE_DIR: join(config, 'state'),
    NO_COLOR: '1',
    ...extra,
  };
}

/** Forks a server script of bench/; `next(type)` resolves to its next message of that type. */
async function forkServer(script, argv) {
  const child = fork(join(ROOT, script), argv, { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  children.add(child);
  const next = (type) =>
    new Promise((done, reject) => {
      const onMessage = (m) => {
        if (m.type !== type) return;
        child.off('message', onMessage);
        child.off('exit', onExit);
        done(m);
      };
      const onExit = (code) => reject(new Error(`${script} exited (${code})`));
      child.on('message', onMessage);
      child.once('exit', onExit);
    });
  const ask = (type, extra = {}, answer = type) => {
    child.send({ type, ...extra });
    return next(answer);
  };
  const { baseUrl } = await next('ready');
  const close = async () => {
    const exited = new Promise((r) => child.once('exit', r));
    child.send({ type: 'close' });
    await exited;
    children.delete(child);
  };
  return { baseUrl, ask, close };
}

let sandboxBundle;
/**
 * A sandbox in its own process (bench/sandbox-child.mjs), so it never shares an event loop with the
 * client; `options` go to startSandbox as they are. Resolves to { baseUrl, stats(), requests(), seed(n), close() }.
 */
async function startSandbox(options) {
  if (!sandboxBundle) {
    const { build } = await import('esbuild');
    sandboxBundle = join(tmp, 'sandbox.mjs');
    const entry = join(ROOT, 'src/sandbox/index.ts');
    await build({ entryPoints: [entry], outfile: sandboxBundle, bundle: true, format: 'esm', platform: 'node', target: 'node22', logLevel: 'warning' });
  }
  const server = await forkServer('bench/sandbox-child.mjs', [sandboxBundle, JSON.stringify({ port: 0, perDay: 1e9, ...options })]);
  return {
    ...server,
    stats: async () => (await server.ask('stats')).stats,
    requests: async () => (await server.ask('requests')).requests,
    seed: (count) => server.ask('seed', { count }, 'seeded'),
  };
}

/** An NDJSON file of `n` valid pets (written once per size). */
async function recordsFile(n) {
  const file = join(tmp, `pets-${n}.ndjson`);
  if (existsSync(file)) return file;
  const out = createWriteStream(file);
  const statuses = ['available', 'pending', 'sold'];
  for (let i = 1; i <= n; i++) {
    const line = `${JSON.stringify({ name: `bench-pet-${i}`, categoryId: (i % 97) + 1, status: statuses[i % 3] })}\n`;
    if (!out.write(line)) await new Promise((r) => out.once('drain', r));
  }
  await new Promise((done, reject) => out.end((e) => (e ? reject(e) : done())));
  return file;
}

/** The 429s and bans a sandbox counted, added to `tally`; throws unless it created `records` pets. */
async function tallySandbox(sb, records, tally) {
  const s = await sb.stats();
  if (s.created !== records) throw new Error(`the sandbox created ${s.created} pets, not ${records}`);
  tally.count429 += s.count429;
  tally.bans += s.bansIssued;
}

// ---------------------------------------------------------------------------------------------
// The rows. Each returns { figure, reference, values, unit?, floor, also?, detail? }: `values` is one
// figure per round (a ratio, or a size in MB), `floor` { op: '<=' | '>=', value } or undefined
// (information only), `also` { text, ok } a second condition of the floor.

const quantity = (what, xs, unit) => ({ what, unit, ...summary(xs) });

/** `petstore <args>` against `node -e 0`: each round's time ratio. */
async function versusNode(args, floor = 1.5) {
  const env = cliEnv();
  const [node, cli] = await interleave(rounds(40, 10), rounds(5, 2), [
    async () => (await timeOnce([NODE, '-e', '0'], env)).ms,
    async () => (await timeOnce([...CLI, ...args], env)).ms,
  ]);
  return {
    figure: quantity(`petstore ${args.join(' ')}`, cli, 'ms'),
    reference: quantity('node -e 0', node, 'ms'),
    values: cli.map((t, i) => t / node[i]),
    floor: { op: '<=', value: floor },
  };
}

/** `pets list --limit 100 -o json` against a one-file script using Node's global fetch, same answer checked. */
async function rowRequest() {
  const key = 'bench-key-request';
  const sb = await startSandbox({ keys: [key], perMinute: 1e9, ban: false });
  try {
    await sb.seed(100);
    const env = cliEnv({ PETSTORE_BASE_URL: sb.baseUrl, PETSTORE_API_KEY: key });
    const bare = [NODE, join(ROOT, 'bench/fetch-one.mjs'), `${sb.baseUrl}/pets?limit=100`, key];
    const cli = [...CLI, 'pets', 'list', '--limit', '100', '-o', 'json'];
    const ids = async (cmd) => {
      const pets = JSON.parse((await timeOnce(cmd, env)).stdout);
      if (pets.length !== 100) throw new Error(`${cmd[1]} printed ${pets.length} pets, not 100`);
      return pets.map((p) => String(p.id)).join(',');
    };
    if ((await ids(bare)) !== (await ids(cli))) throw new Error('petstore and bench/fetch-one.mjs printed different pets');
    const [ref, fig] = await interleave(rounds(30, 8), rounds(3, 1), [async () => (await timeOnce(bare, env)).ms, async () => (await timeOnce(cli, env)).ms]);
    return {
      figure: quantity('petstore pets list --limit 100 -o json', fig, 'ms'),
      reference: quantity('bench/fetch-one.mjs (global fetch)', ref, 'ms'),
      values: fig.map((t, i) => t / ref[i]),
      floor: { op: '<=', value: 1.1 },
    };
  } finally {
    await sb.close();
  }
}

const LIMITED = { records: 80, perWindow: 20, windowMs: 3000 };

/**
 * Seeding under a binding limit against its floor: each window's quota sent the moment the window
 * before resets. The sandbox records when each request arrived (its clock is ours) and the reset it
 * announced. The floor keeps the run's own start-up and exit (spawn to first request, last request to
 * exit) and replaces the span between by the ideal one: from the first request to the first reset,
 * then (windows - 2) whole windows to the reset before the last burst. Zero 429s and zero bans besides.
 */
async function rowSeedLimited() {
  const windows = Math.ceil(LIMITED.records / LIMITED.perWindow);
  const file = await recordsFile(LIMITED.records);
  const walls = [];
  const floors = [];
  const tally = { count429: 0, bans: 0 };
  for (let i = 0; i < rounds(5, 1); i++) {
    const key = `bench-key-limited-${i}`;
    // A fresh sandbox each run: no counts or rate-limit state carried over.
    const sb = await startSandbox({ keys: [key], perMinute: LIMITED.perWindow, windowMs: LIMITED.windowMs, ban: true, recordRequests: true });
    try {
      const env = cliEnv({ PETSTORE_BASE_URL: sb.baseUrl, PETSTORE_API_KEY: key });
      const { ms } = await timeOnce([...CLI, '--quiet', 'pets', 'add', '--file', file, '--yes'], env);
      await tallySandbox(sb, LIMITED.records, tally);
      const sent = (await sb.requests()).filter((r) => r.status === 201 || r.status === 429);
      const first = sent[0];
      const last = sent.at(-1);
      const ideal = windows < 2 ? last.time - first.time : first.reset * 1000 + (windows - 2) * LIMITED.windowMs - first.time;
      walls.push(ms);
      floors.push(ms - (last.time - first.time) + ideal);
    } finally {
      await sb.close();
    }
  }
  return {
    figure: quantity(`pets add --file, ${LIMITED.records} records, ${LIMITED.perWindow} per ${LIMITED.windowMs / 1000} s window`, walls, 'ms'),
    reference: quantity(`the floor: each window's quota sent at its reset (${windows} windows)`, floors, 'ms'),
    values: walls.map((t, i) => t / floors[i]),
    floor: { op: '<=', value: 1.05 },
    also: { text: `429s ${tally.count429}, bans ${tally.bans}`, ok: tally.count429 === 0 && tally.bans === 0 },
    detail: tally,
  };
}

const SEED = { records: 5000, concurrency: 4 };

/**
 * Seeding with no binding limit: `pets add --file` at its default concurrency (4) against the least a
 * Node client does to send the same POSTs (bench/pool-client.mjs: an undici Pool with as many
 * connections). Whole processes, spawn to exit; the ratio is speed (the script's time over the CLI's).
 */
async function rowSeed() {
  const key = 'bench-key-seed';
  const file = await recordsFile(SEED.records);
  const sb = await startSandbox({ keys: [key], perMinute: 1e9, perDay: 1e12, ban: false, recordRequests: false });
  try {
    const count = rounds(20, 2);
    const warmup = 1;
    const [pool, cli] = await interleave(count, warmup, [
      async () => (await timeOnce([NODE, join(ROOT, 'bench/pool-client.mjs'), sb.baseUrl, key, String(SEED.records), String(SEED.concurrency)], cliEnv())).ms,
      async () =>
        (await timeOnce([...CLI, '--quiet', 'pets', 'add', '--file', file, '--yes'], cliEnv({ PETSTORE_BASE_URL: sb.baseUrl, PETSTORE_API_KEY: key }))).ms,
    ]);
    await tallySandbox(sb, 2 * (count + warmup) * SEED.records, { count429: 0, bans: 0 });
    const rps = (ms) => SEED.records / (ms / 1000);
    return {
      figure: quantity(`pets add --file, ${SEED.records} records, default concurrency`, cli.map(rps), 'req/s'),
      reference: quantity(`bench/pool-client.mjs (undici Pool, ${SEED.concurrency} connections)`, pool.map(rps), 'req/s'),
      values: cli.map((t, i) => pool[i] / t),
      floor: { op: '>=', value: 0.7 },
    };
  } finally {
    await sb.close();
  }
}

/** POSTs a pet to `server` from autocannon (8 connections) for `seconds`: 2xx answers per second. */
async function postLoad(server, key, seconds) {
  const { default: autocannon } = await import('autocannon');
  const res = await autocannon({
    url: `${server.baseUrl}/pets`,
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench-pet', categoryId: 1, status: 'available' }),
    connections: 8,
    duration: seconds,
    // In its `amount` mode autocannon notices the end only on its 1 s tick: a fixed duration, sampled often.
    sampleInt: 10,
  });
  if (res.non2xx !== 0 || res.errors !== 0) throw new Error(`autocannon saw ${res.non2xx} non-2xx answers and ${res.errors} errors`);
  return res['2xx'] / (res.duration || seconds);
}

/** The sandbox's POST throughput (in memory) against a bare node:http server answering a fixed 201. */
async function rowSandbox() {
  const key = 'bench-key-sandbox';
  const bare = await forkServer('bench/bare-201.mjs', []);
  const sb = await startSandbox({ keys: [key], perMinute: 1e9, perDay: 1e12, ban: false, recordRequests: false });
  try {
    const seconds = rounds(2, 1);
    const [ref, fig] = await interleave(rounds(20, 3), 1, [() => postLoad(bare, key, seconds), () => postLoad(sb, key, seconds)]);
    return {
      figure: quantity(`the sandbox, POST /pets, autocannon 8 connections, ${seconds} s a round`, fig, 'req/s'),
      reference: quantity('bench/bare-201.mjs (node:http, a fixed 201)', ref, 'req/s'),
      values: fig.map((r, i) => r / ref[i]),
      floor: { op: '>=', value: 0.5 },
    };
  } finally {
    await sb.close();
    await bare.close();
  }
}

const DRY_RUN_LINES = 1_000_000;

/**
 * A dry run of 1M NDJSON lines against bench/readline-json.mjs (readline and JSON.parse of each line):
 * whole processes, spawn to exit, the ratio is speed; and the CLI's peak RSS (bench/peak-rss.mjs).
 * Two results: the speed floor, and the memory cap over the same runs.
 */
async function rowDryRun() {
  const file = await recordsFile(DRY_RUN_LINES);
  let seq = 0;
  const measured = async (argv, env) => {
    const rssFile = join(tmp, `rss-${seq++}`);
    const { ms } = await timeOnce([NODE, '--import', HOOK, ...argv], { ...env, PETSTORE_BENCH_RSS_FILE: rssFile });
    return { ms, mb: Number(readFileSync(rssFile, 'utf8')) / 2 ** 20 };
  };
  const env = cliEnv({ PETSTORE_BASE_URL: 'http://127.0.0.1:9/v1', PETSTORE_API_KEY: 'bench-key-dry-run' });
  const [ref, cli] = await interleave(rounds(10, 1), 1, [
    () => measured([join(ROOT, 'bench/readline-json.mjs'), file], env),
    () => measured([BIN, '--quiet', 'pets', 'add', '--file', file, '--dry-run'], env),
  ]);
  const what = `pets add --file --dry-run, ${DRY_RUN_LINES.toLocaleString('en')} NDJSON lines`;
  return [
    {
      what: 'dry run, 1M NDJSON lines: speed',
      figure: quantity(
        what,
        cli.map((r) => r.ms),
        'ms',
      ),
      reference: quantity(
        'bench/readline-json.mjs (readline + JSON.parse)',
        ref.map((r) => r.ms),
        'ms',
      ),
      values: cli.map((r, i) => ref[i].ms / r.ms),
      floor: { op: '>=', value: 0.3 },
    },
    {
      what: 'dry run, 1M NDJSON lines: peak RSS',
      figure: quantity(
        what,
        cli.map((r) => r.mb),
        'MB',
      ),
      reference: quantity(
        'bench/readline-json.mjs, peak RSS',
        ref.map((r) => r.mb),
        'MB',
      ),
      values: cli.map((r) => r.mb),
      unit: 'MB',
      floor: { op: '<=', value: 100 },
    },
  ];
}

/** redis-server on a free loopback port, nothing saved; undefined when it is not installed. */
async function startRedis() {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
  } catch {
    return undefined;
  }
  const probe = createServer();
  await new Promise((r) => probe.listen(0, '127.0.0.1', r));
  const { port } = probe.address();
  await new Promise((r) => probe.close(r));
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  children.add(child);
  const accepting = () =>
    new Promise((r) => {
      const c = createConnection({ host: '127.0.0.1', port });
      c.once('connect', () => {
        c.destroy();
        r(true);
      });
      c.once('error', () => r(false));
    });
  for (let i = 0; i < 250 && !(await accepting()); i++) await new Promise((r) => setTimeout(r, 20));
  return { url: `redis://127.0.0.1:${port}/0`, stop: () => child.kill() };
}

// 148 records, as since issue #18, so that the figures compare with the earlier records.
const FLEET = { processes: 4, records: 148, perWindow: 40, windowMs: 3000, latencyMs: 50 };

/**
 * A fleet on separate machines: 4 `pets add --file` processes, each with its own config and state
 * folder, one key, started together against one sandbox with a binding limit and 50 ms answers; with
 * `redis`, all share one budget in a real redis-server (--limiter). First spawn to last exit, against
 * the plan-ideal (records / limit x window). Information, not a floor.
 */
async function rowFleet(redis) {
  const server = redis ? await startRedis() : undefined;
  if (redis && !server) return { note: 'not measured: redis-server is not installed' };
  const per = FLEET.records / FLEET.processes;
  const files = [];
  for (let p = 0; p < FLEET.processes; p++) {
    const file = join(tmp, `fleet-${p}.ndjson`);
    writeFileSync(file, Array.from({ length: per }, (_, i) => `${JSON.stringify({ name: `fleet-${p}-${i}`, categoryId: i + 1 })}\n`).join(''));
    files.push(file);
  }
  const ideal = (FLEET.records / FLEET.perWindow) * FLEET.windowMs;
  const elapsed = [];
  const tally = { count429: 0, bans: 0 };
  try {
    for (let i = 0; i < rounds(3, 1); i++) {
      const key = `bench-key-fleet-${i}`;
      const sb = await startSandbox({ keys: [key], perMinute: FLEET.perWindow, windowMs: FLEET.windowMs, ban: true, latencyMs: FLEET.latencyMs });
      try {
        const env = { PETSTORE_BASE_URL: sb.baseUrl, PETSTORE_API_KEY: key, ...(server ? { PETSTORE_LIMITER: server.url } : {}) };
        const started = process.hrtime.bigint();
        await Promise.all(files.map((file) => timeOnce([...CLI, '--quiet', 'pets', 'add', '--file', file, '--concurrency', '4', '--yes'], cliEnv(env))));
        elapsed.push(Number(process.hrtime.bigint() - started) / 1e6);
        await tallySandbox(sb, FLEET.records, tally);
      } finally {
        await sb.close();
      }
    }
  } finally {
    server?.stop();
  }
  return {
    figure: quantity(`${FLEET.processes} x pets add --file, ${per} records each, own folders, one key${redis ? ', one redis-server' : ''}`, elapsed, 'ms'),
    reference: { what: `plan-ideal: ${FLEET.records} records / ${FLEET.perWindow} per ${FLEET.windowMs / 1000} s window`, unit: 'ms', median: ideal },
    values: elapsed.map((t) => t / ideal),
    also: { text: `429s ${tally.count429}, bans ${tally.bans}`, ok: tally.bans === 0 && (!redis || tally.count429 === 0) },
    detail: tally,
  };
}

const RUNNERS = {
  startup: { what: 'start-up: --version', run: () => versusNode(['--version']) },
  help: { what: 'help: pets --help', run: () => versusNode(['pets', '--help']) },
  'env-list': { what: 'env list', run: () => versusNode(['env', 'list']) },
  request: { what: 'one request', run: rowRequest },
  'seed-limited': { what: 'seeding under a binding limit', run: rowSeedLimited },
  seed: { what: 'seeding, no binding limit', run: rowSeed },
  sandbox: { what: 'the sandbox, POST', run: rowSandbox },
  'dry-run': { what: 'dry run, 1M NDJSON lines', run: rowDryRun },
  fleet: { what: 'fleet pacing, separate folders', run: () => rowFleet(false) },
  'fleet-redis': { what: 'fleet pacing, --limiter redis', run: () => rowFleet(true) },
};

// ---------------------------------------------------------------------------------------------
// The table

/** Whether a row meets its floor (and its second condition); undefined for information. */
function verdict(r) {
  if (!r.floor || !r.value) return undefined;
  const ok = r.floor.op === '<=' ? r.value.median <= r.floor.value : r.value.median >= r.floor.value;
  return ok && (r.also?.ok ?? true);
}

/** Median [first–third quartile] of a summary, in `unit` (times of 2 s and more in seconds). */
function fmtSummary(q, unit, bold = false) {
  const seconds = unit === 'ms' && q.median >= 2000;
  const num = (v) => (unit === 'req/s' ? String(Math.round(v)) : seconds ? (v / 1000).toFixed(2) : v.toFixed(unit ? 1 : 2));
  const median = bold ? `**${num(q.median)}**` : num(q.median);
  const u = seconds ? ' s' : unit ? ` ${unit}` : '';
  return q.n ? `${median}${u} [${num(q.q1)}–${num(q.q3)}]` : `${median}${u}`;
}
const fmtQuantity = (q) => (q ? `${fmtSummary(q, q.unit)} (${q.what})` : '-');
const fmtValue = (r) => (r.value ? `${fmtSummary(r.value, r.unit, true)}, ${r.value.n} round${r.value.n === 1 ? '' : 's'}` : '-');

function table(rows) {
  const head = ['row', 'measured: median [quartiles]', 'floor', 'verdict', 'petstore: median [quartiles]', 'reference: median [quartiles]'];
  const body = rows.map((r) => [
    r.what,
    `${fmtValue(r)}${r.also ? `; ${r.also.text}` : ''}`,
    r.failed
      ? '-'
      : r.floor
        ? `${r.floor.op === '<=' ? '≤' : '≥'} ${r.floor.value}${r.unit ? ` ${r.unit}` : ''}${r.also && r.floor ? ', no 429, no ban' : ''}`
        : 'information',
    r.failed ? '**FAILED**' : r.floor ? (r.met ? 'met' : '**NOT MET**') : '-',
    r.note ?? fmtQuantity(r.figure),
    r.note ? '-' : fmtQuantity(r.reference),
  ]);
  return [head, head.map(() => '---'), ...body].map((cells) => `| ${cells.map((c) => String(c).replaceAll('|', '\\|')).join(' | ')} |`).join('\n');
}

const started = Date.now();
const meta = {
  date: new Date(started).toISOString(),
  node: process.version,
  cpus: `${cpus().length} x ${cpus()[0]?.model ?? 'unknown'}`,
  loadavgBefore: loadavg().map((x) => Number(x.toFixed(2))),
  bin: flags.exe ? resolve(flags.exe) : BIN,
  commit: (() => {
    try {
      return execFileSync('git', ['-C', dirname(dirname(BIN)), 'rev-parse', '--short', 'HEAD'], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }).trim();
    } catch {
      return undefined;
    }
  })(),
  quick: flags.quick,
};
log(`petstore bench on Node ${meta.node}, ${meta.cpus}, load average ${meta.loadavgBefore.join(' ')}`);

const results = [];
for (const id of ROWS.filter((r) => only.includes(r))) {
  const { what, run } = RUNNERS[id];
  log(`${id}: ${what}`);
  try {
    const out = await run();
    for (const r of Array.isArray(out) ? out : [out]) {
      const row = { id, what, ...r, value: r.values ? summary(r.values) : undefined };
      if (row.note) log(`  ${row.note}`);
      results.push(row);
    }
  } catch (error) {
    log(`bench: ${id} failed: ${error?.stack ?? error}`);
    results.push({ id, what, failed: true, note: `failed: ${String(error?.message ?? error).split('\n')[0]}` });
  }
}
for (const r of results) r.met = verdict(r);

meta.loadavgAfter = loadavg().map((x) => Number(x.toFixed(2)));
meta.elapsedSeconds = Math.round((Date.now() - started) / 1000);
const missed = results.filter((r) => r.met === false || r.failed).length;
process.stdout.write(
  `\npetstore ${meta.commit ?? BIN}; Node ${meta.node}; ${meta.cpus}; load average ${meta.loadavgBefore.join(' ')} before, ${meta.loadavgAfter.join(' ')} after; ${meta.elapsedSeconds} s.\n` +
    `Ratios: each round's own, median [first–third quartile]; time ratios are petstore ÷ reference, speed ratios (≥) reference time ÷ petstore's.\n\n` +
    `${table(results)}\n\n${missed === 0 ? 'Every floor measured is met.' : `${missed} row(s) NOT MET or FAILED.`}\n`,
);
if (OUT !== '-') {
  mkdirSync(dirname(OUT), { recursive: true });
  writeFileSync(OUT, `${JSON.stringify({ ...meta, rows: results }, null, 2)}\n`);
  log(`wrote ${OUT}`);
}
process.exitCode = missed === 0 ? 0 : 1;
