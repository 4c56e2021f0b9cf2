// Builds of petstore compared on the seeding row's work (pets add --file, 5,000 records, default
// concurrency) with the undici Pool script beside them, for a change to the hot path whose effect is a
// few per cent: on this 2-vCPU VM one run moves by ±10 % with the load, so a few rounds show nothing.
// Each round runs every build and the Pool script once, in a fresh random order (a fixed order put
// whatever ran last in a round at a disadvantage), against a sandbox restarted every 10 rounds (one
// that has taken hundreds of thousands of pets answers more slowly, and not equally for every client).
// Prints, for each build, its wall time and CPU against the first build's in the same round
// (geometric mean ± standard error, and the median) and the Pool script's speed ÷ its own.
//   node bench/seed-ab.mjs [--rounds 40] [--records 5000] name=/path/to/build [name=/path/to/other/build ...]
// A build is a folder holding bin/petstore and dist/ (a copy of the tree after npm run build).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { bundleSandbox, forkServer } from './child-ipc.mjs';
import { writeRecordsFile } from './records-file.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const HOOK = pathToFileURL(join(ROOT, 'bench/peak-rss.mjs')).href;
const KEY = 'bench-key-seed-ab';
const CONCURRENCY = 4;

const { values: flags, positionals } = parseArgs({
  allowPositionals: true,
  options: { rounds: { type: 'string', default: '40' }, records: { type: 'string', default: '5000' } },
});
const rounds = Number(flags.rounds);
const records = Number(flags.records);
const builds = positionals.map((p) => {
  const at = p.indexOf('=');
  if (at < 1) throw new Error(`expected name=/path/to/build, got ${p}`);
  return { name: p.slice(0, at), bin: join(resolve(p.slice(at + 1)), 'bin/petstore') };
});
if (builds.length === 0) throw new Error('usage: node bench/seed-ab.mjs [--rounds 40] [--records 5000] name=/path/to/build ...');

const tmp = mkdtempSync(join(tmpdir(), 'seed-ab-'));
const file = await writeRecordsFile(join(tmp, 'records.ndjson'), records);
const lib = await bundleSandbox(join(tmp, 'sandbox-lib.mjs'));

async function startSandbox() {
  const { child, next } = forkServer('bench/sandbox-child.mjs', [lib, JSON.stringify({ port: 0, keys: [KEY], perMinute: 1e9, perDay: 1e12, ban: false })]);
  const { baseUrl } = await next('ready');
  return { baseUrl, close: () => new Promise((r) => child.once('exit', r).send({ type: 'close' })) };
}

/** One process to its end: wall ms from spawn to exit, and its CPU µs (peak-rss.mjs). */
function run(argv, env) {
  const cpuFile = join(tmp, `cpu-${process.hrtime.bigint()}`);
  return new Promise((done, fail) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, ['--import', HOOK, ...argv], { env: { ...env, PETSTORE_BENCH_CPU_FILE: cpuFile }, stdio: 'ignore' });
    child.on('error', fail);
    child.on('exit', (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (code !== 0) fail(new Error(`${argv.join(' ')} exited with ${code}`));
      else done({ ms, cpu: Number(readFileSync(cpuFile, 'utf8')) });
    });
  });
}

const rows = [];
let sb;
try {
  for (let r = 0; r < rounds; r++) {
    if (r % 10 === 0) {
      await sb?.close();
      sb = await startSandbox();
    }
    const row = {};
    const order = [...builds, { name: 'pool' }].sort(() => Math.random() - 0.5);
    for (const b of order) {
      const home = mkdtempSync(join(tmp, 'home-'));
      const env = { PATH: process.env.PATH ?? '', HOME: home, PETSTORE_CONFIG_DIR: home, PETSTORE_STATE_DIR: join(home, 'state'), NO_COLOR: '1' };
      row[b.name] =
        b.name === 'pool'
          ? await run([join(ROOT, 'bench/pool-client.mjs'), sb.baseUrl, KEY, String(records), String(CONCURRENCY)], env)
          : await run([b.bin, '--quiet', 'pets', 'add', '--file', file, '--yes'], { ...env, PETSTORE_BASE_URL: sb.baseUrl, PETSTORE_API_KEY: KEY });
      rmSync(home, { recursive: true, force: true });
    }
    rows.push(row);
    process.stderr.write(`\rround ${r + 1}/${rounds}`);
  }
} finally {
  await sb?.close();
  rmSync(tmp, { recursive: true, force: true });
}
process.stderr.write('\n');

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
/** Geometric mean and its standard error (as a fraction) of ratios. */
const geo = (xs) => {
  const logs = xs.map(Math.log);
  const mean = logs.reduce((a, b) => a + b, 0) / logs.length;
  const se = Math.sqrt(logs.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(1, logs.length - 1) / logs.length);
  return `${Math.exp(mean).toFixed(3)} ±${(se * 100).toFixed(1)} %`;
};
const base = builds[0].name;
console.log(`${rounds} rounds of ${records} records; each build against ${base} in the same round, and the Pool script's speed ÷ its own`);
for (const b of builds) {
  const wall = rows.map((row) => row[b.name].ms / row[base].ms);
  const cpu = rows.map((row) => row[b.name].cpu / row[base].cpu);
  const speed = rows.map((row) => row.pool.ms / row[b.name].ms);
  console.log(
    `${b.name.padEnd(12)} wall ${geo(wall)} (median ${median(wall).toFixed(3)})  CPU ${geo(cpu)}  ÷ Pool script ${geo(speed)} (median ${median(speed).toFixed(3)})  median ${Math.round(median(rows.map((row) => row[b.name].ms)))} ms`,
  );
}
