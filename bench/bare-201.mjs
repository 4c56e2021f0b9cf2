// The ceiling for the sandbox row: a bare node:http server that reads each POST body and answers a fixed
// 201 with a pet, in its own process like the sandbox (bench/sandbox-child.mjs), driven over IPC:
//   -> { type: 'ready', baseUrl }
//   <- { type: 'cpu' } -> { type: 'cpu', cpu: process.cpuUsage() }
//   <- { type: 'close' } -> exits
import { createServer } from 'node:http';
import { serveOverIpc } from './child-ipc.mjs';

const body = '{"id":1,"name":"bench-pet","categoryId":1,"status":"available"}';
const server = createServer((req, res) => {
  req.on('data', () => {});
  req.on('end', () => {
    res.writeHead(201, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), location: '/v1/pets/1' });
    res.end(body);
  });
});
serveOverIpc(server);
