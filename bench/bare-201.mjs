// The sandbox row's reference: a bare node:http server that reads each POST body and answers a fixed 201
// with a pet, in its own process like the sandbox (bench/sandbox-child.mjs), driven over IPC:
//   -> { type: 'ready', baseUrl }
//   <- { type: 'close' } -> exits
import { createServer } from 'node:http';

const body = '{"id":1,"name":"bench-pet","categoryId":1,"status":"available"}';
const server = createServer((req, res) => {
  req.on('data', () => {});
  req.on('end', () => {
    res.writeHead(201, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), location: '/v1/pets/1' });
    res.end(body);
  });
});
server.keepAliveTimeout = 10_000;
server.listen(0, '127.0.0.1', () => process.send({ type: 'ready', baseUrl: `http://127.0.0.1:${server.address().port}/v1` }));
process.on('disconnect', () => process.exit(0));
process.on('message', (msg) => {
  if (msg.type === 'close') server.close(() => process.exit(0));
});
