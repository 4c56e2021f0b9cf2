// A scriptable hostile server for end-to-end fault tests: each request gets the
// behaviour the test scripted for it (by arrival order), from a well-formed
// answer to raw bytes, a reset at a chosen point, a stall, or a huge body.
// Every request is recorded (method, path, headers, body, time) so a test can
// assert, for example, that a POST reached the server exactly once.
//
// Listens on 127.0.0.1 only; close() destroys every open socket, so a stalled
// exchange never keeps the test process alive.

import { createServer, STATUS_CODES, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

interface FaultRequest {
  /** 1, 2, 3... in arrival order. */
  seq: number;
  method: string;
  /** Request target as sent, e.g. "/v1/pets?limit=5". */
  url: string;
  /** Path without the query. */
  path: string;
  /** Lower-case names. */
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** Epoch ms when the request (with its body) had arrived. */
  time: number;
}

/** What the server does with one request. */
export type Fault =
  /** A normal answer, after `delayMs` (slow headers). */
  | { kind: 'respond'; status: number; headers?: OutgoingHttpHeaders; body?: string | Buffer; delayMs?: number }
  /**
   * Bytes written to the socket as they are (status line, headers, body), then
   * the connection ends with `end`: 'close' (FIN, the default), 'reset' (RST) or 'keep' (stays open).
   */
  | { kind: 'raw'; data: string | Buffer; end?: 'close' | 'reset' | 'keep' }
  /** The connection closes before any byte of the response: FIN ('close') or RST ('reset', the default). */
  | { kind: 'drop'; how?: 'close' | 'reset' }
  /** The response head (and `body`, if any) is written, then the connection is reset mid-response. */
  | { kind: 'cut'; status: number; headers?: OutgoingHttpHeaders; contentLength: number; body?: string; how?: 'close' | 'reset' }
  /** Nothing is ever answered (optionally after the head and part of the body). */
  | { kind: 'stall'; head?: { status: number; headers?: OutgoingHttpHeaders; contentLength?: number; body?: string } }
  /** A status with a body of `bytes` bytes, streamed in 64 KiB chunks with backpressure. */
  | { kind: 'big'; status: number; bytes: number; headers?: OutgoingHttpHeaders; declareLength?: boolean };

export type Script = (req: FaultRequest) => Fault;

export interface FaultServer {
  /** http://127.0.0.1:<port> */
  origin: string;
  /** origin + "/v1": for PETSTORE_BASE_URL. */
  baseUrl: string;
  port: number;
  /** Every request received so far, oldest first. */
  requests(): FaultRequest[];
  /** Bytes of response body the server managed to write (for the big-body fault). */
  bytesWritten(): number;
  /** Replaces the script. */
  script(next: Script | Fault[]): void;
  close(): Promise<void>;
}

const CHUNK = Buffer.alloc(64 * 1024, 'x');

function head(status: number, headers: OutgoingHttpHeaders = {}, contentLength?: number): string {
  const lines = [`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Unknown'}`];
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) lines.push(`${name}: ${v}`);
  }
  if (contentLength !== undefined) lines.push(`content-length: ${contentLength}`);
  lines.push('connection: close');
  return `${lines.join('\r\n')}\r\n\r\n`;
}

function finish(socket: Socket, how: 'close' | 'reset' | 'keep'): void {
  if (how === 'keep') return;
  if (how === 'reset') socket.resetAndDestroy();
  else socket.end(() => socket.destroy());
}

/**
 * Starts a fault server. `script` is a function of the request, or a list of
 * faults used in order (the last one repeats for any further request).
 */
export async function startFaultServer(script: Script | Fault[]): Promise<FaultServer> {
  const toScript = (s: Script | Fault[]): Script => {
    if (typeof s === 'function') return s;
    const list = [...s];
    return (req) => list[Math.min(req.seq, list.length) - 1] ?? { kind: 'respond', status: 500 };
  };
  let current = toScript(script);
  const recorded: FaultRequest[] = [];
  const sockets = new Set<Socket>();
  let written = 0;
  let closing = false;

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = req.url ?? '/';
      const record: FaultRequest = {
        seq: recorded.length + 1,
        method: req.method ?? '',
        url,
        path: url.split('?')[0] ?? url,
        headers: { ...req.headers },
        body: Buffer.concat(chunks).toString('utf8'),
        time: Date.now(),
      };
      recorded.push(record);
      act(current(record), req.socket, res);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    // A client that resets on its side (timeout, body cap) is expected here.
    socket.on('error', () => {});
  });

  function act(fault: Fault, socket: Socket, res: ServerResponse): void {
    switch (fault.kind) {
      case 'respond': {
        const body = fault.body ?? '';
        const answer = () => {
          res.writeHead(fault.status, { 'content-length': Buffer.byteLength(body), ...fault.headers });
          res.end(body);
        };
        if (fault.delayMs) setTimeout(answer, fault.delayMs);
        else answer();
        return;
      }
      case 'raw':
        socket.write(fault.data, () => finish(socket, fault.end ?? 'close'));
        return;
      case 'drop':
        finish(socket, fault.how ?? 'reset');
        return;
      case 'cut':
        socket.write(head(fault.status, fault.headers, fault.contentLength) + (fault.body ?? ''), () => {
          // Give the client a moment to read the head, so the reset lands mid-response.
          setTimeout(() => finish(socket, fault.how ?? 'reset'), 50);
        });
        return;
      case 'stall':
        if (fault.head) socket.write(head(fault.head.status, fault.head.headers, fault.head.contentLength) + (fault.head.body ?? ''));
        return; // the socket stays open until the client gives up or close() destroys it
      case 'big': {
        res.writeHead(fault.status, {
          'content-type': 'application/json',
          ...(fault.declareLength ? { 'content-length': fault.bytes } : {}),
          ...fault.headers,
        });
        let left = fault.bytes;
        const pump = () => {
          while (left > 0 && !closing && !res.destroyed) {
            const n = Math.min(left, CHUNK.length);
            left -= n;
            written += n;
            const ok = res.write(n === CHUNK.length ? CHUNK : CHUNK.subarray(0, n));
            if (!ok) {
              res.once('drain', pump);
              return;
            }
          }
          if (left === 0 && !res.destroyed) res.end();
        };
        res.on('close', () => (left = 0));
        pump();
        return;
      }
    }
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    baseUrl: `${origin}/v1`,
    port,
    requests: () => recorded.map((r) => ({ ...r })),
    bytesWritten: () => written,
    script: (next) => {
      current = toScript(next);
    },
    close: async () => {
      closing = true;
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A JSON answer with the given status. */
export function json(status: number, body: unknown, headers: OutgoingHttpHeaders = {}): Fault {
  return { kind: 'respond', status, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) };
}

/** A JSON answer whose body text is given as is (exact digits, truncated JSON...). */
export function jsonText(status: number, text: string, headers: OutgoingHttpHeaders = {}): Fault {
  return { kind: 'respond', status, headers: { 'content-type': 'application/json', ...headers }, body: text };
}

/** An HTML error page, as proxies and load balancers send. */
export function html(status: number, headers: OutgoingHttpHeaders = {}): Fault {
  return {
    kind: 'respond',
    status,
    headers: { 'content-type': 'text/html; charset=utf-8', ...headers },
    body: `<html><head><title>${status} ${STATUS_CODES[status] ?? ''}</title></head><body><h1>${status}</h1><pre>upstream said no</pre></body></html>`,
  };
}

/**
 * A port whose connection attempts never complete: a listener in a child process that never
 * accepts, its short accept queue filled, so the kernel drops further SYNs and a connect
 * hangs until the client's connect timeout. (A server in this process would accept at once.)
 */
export async function startUnansweredListener(): Promise<{ baseUrl: string; close(): Promise<void> }> {
  const { spawn } = await import('node:child_process');
  const { connect } = await import('node:net');
  // The child blocks its event loop right after listen(), so nothing is ever accepted.
  const code = `const s=require('node:net').createServer();s.listen({port:0,host:'127.0.0.1',backlog:1},()=>{process.stdout.write(String(s.address().port)+'\\n',()=>Atomics.wait(new Int32Array(new SharedArrayBuffer(4)),0,0))})`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.stdout.once('data', (d: Buffer) => resolve(Number(String(d).trim())));
  });
  const fillers = Array.from({ length: 4 }, () => connect(port, '127.0.0.1').on('error', () => {}));
  await new Promise((r) => setTimeout(r, 100));
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    async close() {
      for (const f of fillers) f.destroy();
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
    },
  };
}
