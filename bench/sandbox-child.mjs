// One sandbox in its own process for bench/run.mjs (so the server never shares an event loop with the
// client), started through its public startSandbox and driven over the IPC channel of child_process.fork:
//   fork(this file, [<src/sandbox/index.ts bundled>, <startSandbox options as JSON>])
//   -> { type: 'ready', baseUrl }
//   <- { type: 'stats' }  -> { type: 'stats', stats }
//   <- { type: 'requests' } -> { type: 'requests', requests: [{ time, status, reset }] } (with recordRequests)
//   <- { type: 'seed', count } -> { type: 'seeded' }
//   <- { type: 'close' }  -> closes the server and exits
import { pathToFileURL } from 'node:url';

const [bundle, optionsJson] = process.argv.slice(2);
const { startSandbox } = await import(pathToFileURL(bundle).href);
const sandbox = await startSandbox({ ...JSON.parse(optionsJson), host: '127.0.0.1' });

const close = async () => {
  await sandbox.close();
  process.exit(0);
};
process.on('disconnect', close);
process.on('message', async (msg) => {
  if (msg.type === 'stats') process.send({ type: 'stats', stats: sandbox.stats() });
  else if (msg.type === 'requests') {
    const requests = sandbox.requests().map((r) => ({ time: r.time, status: r.status, reset: Number(r.responseHeaders['x-ratelimit-reset']) }));
    process.send({ type: 'requests', requests });
  } else if (msg.type === 'seed') {
    sandbox.seed(Array.from({ length: msg.count }, (_, i) => ({ name: `seed-${i + 1}`, categoryId: i + 1, status: 'available' })));
    process.send({ type: 'seeded' });
  } else if (msg.type === 'close') await close();
});
process.send({ type: 'ready', baseUrl: sandbox.baseUrl });
