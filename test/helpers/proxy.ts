import { listenOnLoopback, type Loopback } from './loopback.js';
import { selfSignedCert } from './tls-cert.js';
// A tiny HTTP proxy for tests (127.0.0.1 only): CONNECT tunnels (what undici's
// ProxyAgent uses for https URLs) and absolute-URI forwarding (what it uses for
// plain http URLs). It records every request, can demand credentials (407), or
// refuse every request with a status. Plus a TLS front for an http server, so
// an https URL can be tested through a CONNECT tunnel.

import { readFileSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';

interface ProxyLogEntry {
  /** "CONNECT" for a tunnel, else the method of a forwarded request. */
  method: string;
  /** host:port of the target. */
  target: string;
  /** The full URL of a forwarded request; the authority of a tunnel. */
  url: string;
  /** The Proxy-Authorization header as received, if any. */
  proxyAuthorization: string | undefined;
  /** The status the proxy itself answered with (407, the refusal status), if it did not pass the request on. */
  refusedWith: number | undefined;
}

export interface TestProxyOptions {
  /** "user:password": requests without matching Basic credentials get 407. */
  credentials?: string;
  /** Answer every request (tunnel or forward) with this status instead of passing it on. */
  refuse?: number;
}

export interface TestProxy {
  /** http://127.0.0.1:<port> */
  url: string;
  port: number;
  log: ProxyLogEntry[];
  close(): Promise<void>;
}

export async function startTestProxy(opts: TestProxyOptions = {}): Promise<TestProxy> {
  const log: ProxyLogEntry[] = [];
  // Assigned once listening, before any connection can arrive.
  let lb: Loopback;
  const expected = opts.credentials ? `Basic ${Buffer.from(opts.credentials).toString('base64')}` : undefined;

  /** The status the proxy answers with itself, or undefined to pass the request on. */
  const verdict = (req: IncomingMessage): number | undefined => {
    if (expected !== undefined && req.headers['proxy-authorization'] !== expected) return 407;
    return opts.refuse;
  };

  const server = createServer((req, res) => {
    // Forward proxying: the request line carries an absolute URI.
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      res.writeHead(400).end('expected an absolute URI');
      return;
    }
    const refusedWith = verdict(req);
    log.push({
      method: req.method ?? '',
      target: target.host,
      url: target.href,
      proxyAuthorization: req.headers['proxy-authorization'],
      refusedWith,
    });
    if (refusedWith !== undefined) {
      res.writeHead(refusedWith, refusedWith === 407 ? { 'proxy-authenticate': 'Basic realm="test"' } : {}).end();
      return;
    }
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    delete headers['proxy-connection'];
    const upstream = httpRequest(
      { host: target.hostname, port: target.port || 80, method: req.method, path: target.pathname + target.search, headers },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });

  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    lb.track(client);
    client.on('error', () => {});
    const authority = req.url ?? '';
    const refusedWith = verdict(req);
    log.push({ method: 'CONNECT', target: authority, url: authority, proxyAuthorization: req.headers['proxy-authorization'], refusedWith });
    if (refusedWith !== undefined) {
      client.end(`HTTP/1.1 ${refusedWith} Refused\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    const [host, port] = [authority.slice(0, authority.lastIndexOf(':')), Number(authority.slice(authority.lastIndexOf(':') + 1))];
    const upstream = connect(port, host.replace(/^\[(.*)\]$/, '$1'), () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    lb.track(upstream);
    upstream.on('error', () => client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n'));
  });
  lb = await listenOnLoopback(server);
  const { port } = lb;
  return { url: `http://127.0.0.1:${port}`, port, log, close: lb.close };
}

export interface TlsFront {
  /** https://127.0.0.1:<port> */
  url: string;
  port: number;
  /** PEM file of the self-signed certificate (for NODE_EXTRA_CA_CERTS). */
  caFile: string;
  /** Connections accepted. */
  connections: () => number;
  close(): Promise<void>;
}

/** Terminates TLS on 127.0.0.1 (self-signed certificate for IP 127.0.0.1) and passes the bytes to a local port. */
export async function startTlsFront(targetPort: number): Promise<TlsFront> {
  const cert = selfSignedCert();
  const keyFile = cert.keyFile;
  const caFile = cert.certFile;
  let connections = 0;
  const sockets = new Set<Socket>();
  const server = createTlsServer({ key: readFileSync(keyFile), cert: readFileSync(caFile) }, (tlsSocket) => {
    connections++;
    const upstream = connect(targetPort, '127.0.0.1');
    for (const s of [tlsSocket, upstream] as Socket[]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {});
    }
    tlsSocket.pipe(upstream).pipe(tlsSocket);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}`,
    port,
    caFile,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => {
          cert.remove();
          resolve();
        });
      }),
  };
}
