// bench/bare-201-ratelimit.mjs plus what any faithful server must do for a create: read the body, and
// answer with that pet's own text under a new id and its location (no checks, no auth, no store). What
// the sandbox is measured against in bench/README.md ("Measured and rejected"), through
//   npx node bench/sandbox-ab.mjs script=bench/bare-201-ratelimit.mjs script=bench/bare-201-pet.mjs
// Same IPC as bare-201.mjs:
//   -> { type: 'ready', baseUrl }
//   <- { type: 'cpu' } -> { type: 'cpu', cpu: process.cpuUsage() }
//   <- { type: 'close' } -> exits
import { createServer } from 'node:http';
import { serveOverIpc } from './child-ipc.mjs';

let n = 0;
const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const text = Buffer.concat(chunks).toString('utf8');
    const id = String(++n);
    const body = ['{"id":', id, ',', text.slice(1)].join('');
    res.writeHead(201, [
      'x-ratelimit-limit',
      '1000000000',
      'x-ratelimit-remaining',
      String(1e9 - n),
      'x-ratelimit-reset',
      '1795558644',
      'content-type',
      'application/json',
      'content-length',
      String(Buffer.byteLength(body)),
      'location',
      `/v1/pets/${id}`,
    ]);
    res.end(body);
  });
});
serveOverIpc(server);
