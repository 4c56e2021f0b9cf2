// Interleaved POST load on several servers, each in its own process: bare-201 (bench/bare-201.mjs) and
// one or more sandbox bundles (bench/sandbox-child.mjs). For comparing sandbox builds step by step
// without the rest of bench/run.mjs. Prints req/s and server CPU µs per request, min/median/max.
//   npx node bench/sandbox-ab.mjs [--rounds 5] [--seconds 2] [--data] [name=bundle.mjs ...]
// With no bundle given, src/sandbox/index.ts is bundled (esbuild) as "sandbox".
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { bundleSandbox, forkServer } from './child-ipc.mjs';
import { postLoad } from './post-load.mjs';

const args = process.argv.slice(2);
const flag = (name, fallback) => {
  const i = args.indexOf(name);
  if (i === -1) return fallback;
  const value = args[i + 1];
  args.splice(i, 2);
  return Number(value);
};
const rounds = flag('--rounds', 5);
const seconds = flag('--seconds', 2);
const withData = args.includes('--data');
const bundles = args.filter((a) => a.includes('=') && !a.startsWith('script='));
const tmp = mkdtempSync(join(tmpdir(), 'sandbox-ab-'));
const key = 'bench-key-sandbox';

if (bundles.length === 0) bundles.push(`sandbox=${await bundleSandbox(join(tmp, 'sandbox.mjs'))}`);

function start(script, argv) {
  const { child, next } = forkServer(script, argv);
  return next('ready').then(({ baseUrl }) => ({
    baseUrl,
    async cpu() {
      child.send({ type: 'cpu' });
      const { cpu } = await next('cpu');
      return cpu;
    },
    close: () => child.kill(),
  }));
}

const options = (name) => ({
  port: 0,
  keys: [key],
  perMinute: 1e9,
  perDay: 1e12,
  ban: false,
  recordRequests: false,
  ...(withData ? { dataFile: join(tmp, `${name}.data`) } : {}),
});
const servers = { bare: await start('bench/bare-201.mjs', []) };
// Other bare-like servers to compare: script=path.mjs (a file that speaks the same IPC as bare-201.mjs).
for (const a of args.filter((x) => x.startsWith('script='))) servers[`script${Object.keys(servers).length}`] = await start(a.slice(7), []);
for (const b of bundles) {
  const [name, file] = b.split('=');
  servers[name] = await start('bench/sandbox-child.mjs', [resolve(file), JSON.stringify(options(name))]);
}

async function load(sb, secs) {
  const r = await postLoad(sb, key, 8, secs);
  return { rps: r.rps, us: r.cpuPerRequest, user: r.user, sys: r.system };
}

const names = Object.keys(servers);
const got = Object.fromEntries(names.map((n) => [n, { rps: [], us: [], user: [], sys: [] }]));
for (const n of names) await load(servers[n], 1);
for (let i = 0; i < rounds; i++) {
  const order = i % 2 === 0 ? names : [...names].reverse();
  for (const n of order) {
    const r = await load(servers[n], seconds);
    got[n].rps.push(r.rps);
    got[n].us.push(r.us);
    got[n].user.push(r.user);
    got[n].sys.push(r.sys);
  }
}
for (const s of Object.values(servers)) s.close();
rmSync(tmp, { recursive: true, force: true });

const sorted = (xs) => [...xs].sort((a, b) => a - b);
const med = (xs) => {
  const s = sorted(xs);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const mmm = (xs, d) => `${Math.min(...xs).toFixed(d)}/${med(xs).toFixed(d)}/${Math.max(...xs).toFixed(d)}`;
const ratios = (n) => got[n].rps.map((r, i) => r / got.bare.rps[i]);
console.log(`${rounds} rounds × ${seconds} s, 8 connections${withData ? ', --data' : ''}; min/median/max`);
for (const n of names) {
  const cpuRatios = got[n].us.map((u, i) => u / got.bare.us[i]);
  const extra = n === 'bare' ? '' : `\n${''.padEnd(10)} per round: req/s ratio to bare ${mmm(ratios(n), 2)}, CPU ratio to bare ${mmm(cpuRatios, 2)}`;
  console.log(
    `${n.padEnd(10)} req/s ${mmm(got[n].rps, 0)}  CPU µs/req ${mmm(got[n].us, 1)} (user ${mmm(got[n].user, 1)}, system ${mmm(got[n].sys, 1)})${extra}`,
  );
}
