// bench/bare-201.mjs with the headers the interface puts on every answer: X-RateLimit-Limit, -Remaining
// (counting down) and -Reset, as a flat array like the sandbox's. What a bare node:http server pays for
// the contract's headers alone (about a tenth of bare-201's throughput here), without any of the
// sandbox's work. Same IPC as bare-201.mjs:
//   -> { type: 'ready', baseUrl }
//   <- { type: 'cpu' } -> { type: 'cpu', cpu: process.cpuUsage() }
//   <- { type: 'close' } -> exits
import { createServer } from 'node:http';
import { serveOverIpc } from './child-ipc.mjs';

let n = 0;
const body = '{"id":1,"name":"bench-pet","categoryId":1,"status":"available"}';
const server = createServer((req, res) => {
  req.on('data', () => {});
  req.on('end', () => {
    res.writeHead(201, [
      'x-ratelimit-limit',
      1000000000,
      'x-ratelimit-remaining',
      999999999 - n++,
      'x-ratelimit-reset',
      1795558644,
      'content-type',
      'application/json',
      'content-length',
      Buffer.byteLength(body),
      'location',
      '/v1/pets/1',
    ]);
    res.end(body);
  });
});
serveOverIpc(server);
