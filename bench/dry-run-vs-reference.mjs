// Times `petstore pets add --file F --dry-run` against the minimal reader of the same file
// (bench/readline-json.mjs for NDJSON, bench/csv-parse-only.mjs for CSV), run after run, interleaved,
// and prints wall time, CPU (user + system, from bench/peak-rss.mjs) and peak RSS, min/median/max of
// each. Not part of npm test or npm run bench; run it by hand after npm run build.
//
//   node bench/dry-run-vs-reference.mjs [--format ndjson|csv] [--lines N] [--runs N] [--bin path/to/petstore] [--validate-only]
//
// --validate-only: the file ends with one invalid record, so the CLI stops (exit 2) after its first
// pass, which reads and checks every record: the reader's own cost, one pass like the reference's,
// without the second pass and the result lines a dry run prints.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { writeRecordsFile } from './records-file.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const NODE = process.execPath;
const HOOK = pathToFileURL(join(ROOT, 'bench/peak-rss.mjs')).href;
const { values: flags } = parseArgs({
  options: {
    format: { type: 'string', default: 'ndjson' },
    lines: { type: 'string', default: '1000000' },
    runs: { type: 'string', default: '5' },
    bin: { type: 'string' },
    'validate-only': { type: 'boolean', default: false },
  },
});
const validateOnly = flags['validate-only'];
const format = flags.format;
if (format !== 'ndjson' && format !== 'csv') throw new Error('--format must be ndjson or csv');
const lines = Number(flags.lines);
const runs = Number(flags.runs);
const BIN = resolve(flags.bin ?? join(ROOT, 'bin/petstore'));
const tmp = mkdtempSync(join(tmpdir(), 'petstore-dry-run-ref-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));

/** The records bench/run.mjs uses; with --validate-only, one invalid record after them. */
function recordsFile(n) {
  // A record with an empty name: reported at the end of the first pass, which then stops the run.
  const invalid = format === 'csv' ? ',1,\n' : '{"name":"","categoryId":1}\n';
  return writeRecordsFile(join(tmp, `pets-${n}.${format}`), n, format, validateOnly ? invalid : '');
}

let seq = 0;
/** One run: wall ms (spawn to exit), CPU ms and peak RSS MB of the process. */
function runOnce(args, extraEnv = {}, okCodes = [0]) {
  const rssFile = join(tmp, `rss-${seq}`);
  const cpuFile = join(tmp, `cpu-${seq++}`);
  const config = join(tmp, 'config');
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: tmp,
    PETSTORE_CONFIG_DIR: config,
    PETSTORE_STATE_DIR: join(config, 'state'),
    NO_COLOR: '1',
    PETSTORE_BENCH_RSS_FILE: rssFile,
    PETSTORE_BENCH_CPU_FILE: cpuFile,
    ...extraEnv,
  };
  return new Promise((done, fail) => {
    const started = process.hrtime.bigint();
    const child = spawn(NODE, ['--import', HOOK, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => {
      if (stderr.length < 4000) stderr += d;
    });
    child.on('error', fail);
    child.on('exit', (code, signal) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (!okCodes.includes(code)) return fail(new Error(`${args.join(' ')} exited with ${code ?? signal}\n${stderr}`));
      done({ ms, cpuMs: Number(readFileSync(cpuFile, 'utf8')) / 1000, rssMB: Number(readFileSync(rssFile, 'utf8')) / 2 ** 20 });
    });
  });
}

const file = await recordsFile(lines);
const cli = [BIN, '--quiet', 'pets', 'add', '--file', file, '--dry-run'];
const cliEnv = { PETSTORE_BASE_URL: 'http://127.0.0.1:9/v1', PETSTORE_API_KEY: 'bench-key-dry-run' };
const ref = [join(ROOT, 'bench', format === 'csv' ? 'csv-parse-only.mjs' : 'readline-json.mjs'), file];
const got = { cli: [], ref: [] };
// One warm-up each (page cache, compile cache), then A B A B ...
const cliCodes = validateOnly ? [2] : [0];
await runOnce(cli, cliEnv, cliCodes);
await runOnce(ref);
for (let i = 0; i < runs; i++) {
  got.cli.push(await runOnce(cli, cliEnv, cliCodes));
  got.ref.push(await runOnce(ref));
}

const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return { min: s[0], median: s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2, max: s.at(-1) };
};
const show = (xs, digits = 0) => {
  const { min, median, max } = stats(xs);
  return `${median.toFixed(digits)} (${min.toFixed(digits)}–${max.toFixed(digits)})`;
};
const refName = format === 'csv' ? 'csv-parse only' : 'readline + JSON.parse';
process.stdout.write(
  `${lines.toLocaleString('en')} ${format.toUpperCase()} lines${validateOnly ? ' (+1 invalid: the validation pass alone)' : ''}, ${runs} runs each, median (min–max)\n`,
);
for (const [name, rs] of [
  [validateOnly ? 'petstore, 1st pass' : 'petstore --dry-run', got.cli],
  [refName, got.ref],
]) {
  process.stdout.write(
    `${name.padEnd(22)} wall ${show(rs.map((r) => r.ms))} ms  cpu ${show(rs.map((r) => r.cpuMs))} ms  peak RSS ${show(
      rs.map((r) => r.rssMB),
      1,
    )} MB\n`,
  );
}
const speed = (k) => stats(got.ref.map((r) => r[k])).median / stats(got.cli.map((r) => r[k])).median;
process.stdout.write(`speed vs reference (median ref / median cli): wall ${speed('ms').toFixed(2)}×, cpu ${speed('cpuMs').toFixed(2)}×\n`);
